// The square's grid as pure functions: how many columns a width holds
// (spec 3 §2 "Normal: 1 column from width 220 up to 7 columns from 2100";
// spec 3 §9 "Minimum card width 140"), where each card goes in a
// masonry-like layout (each card into the shortest column), and which cards
// are near the viewport (only those are rendered).
//
// Column steps (the spec names only the ends; the steps between are ours):
//   width <  300 : 1      300 - 639 : 2      640 - 959 : 3      960 - 1279 : 4
//   1280 - 1679  : 5      1680 - 2099 : 6    2100 and up : 7
// and never so many that a card would be narrower than 140 px.

/** Grid width at which each column count starts, ascending. */
export const COLUMN_STEPS: ReadonlyArray<readonly [minWidth: number, columns: number]> = [
  [0, 1],
  [300, 2],
  [640, 3],
  [960, 4],
  [1280, 5],
  [1680, 6],
  [2100, 7],
];

/** Spec 3 §9: the narrowest a card may be. */
export const MIN_CARD_WIDTH = 140;
/** Space between cards, both ways. */
export const GAP = 12;
/** The card's text below its picture (title, author and likes), in px. */
export const CARD_FOOTER = 64;
/** Pictures without a known size are drawn square; no card is taller than this ratio. */
export const MAX_ASPECT = 2;
export const MIN_ASPECT = 0.5;

/** Columns for a grid `width` px wide. */
export function columnCount(width: number, gap: number = GAP): number {
  let byStep = 1;
  for (const [min, cols] of COLUMN_STEPS) if (width >= min) byStep = cols;
  const byWidth = Math.max(1, Math.floor((width + gap) / (MIN_CARD_WIDTH + gap)));
  return Math.max(1, Math.min(byStep, byWidth));
}

/** The picture's height over its width, clamped so that no card is a sliver or a tower. */
export function aspectOf(cover: { width: number; height: number }): number {
  if (!(cover.width > 0) || !(cover.height > 0)) return 1;
  return Math.min(MAX_ASPECT, Math.max(MIN_ASPECT, cover.height / cover.width));
}

export interface Placed {
  index: number;
  column: number;
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface Layout {
  columns: number;
  columnWidth: number;
  placed: Placed[];
  /** The grid's full height. */
  height: number;
}

/**
 * Places cards (their picture aspects, in order) into `columns` columns of a
 * grid `width` wide: each card goes to the shortest column (the leftmost on a
 * tie), so the reading order stays roughly top to bottom.
 */
export function layoutGrid(
  aspects: readonly number[],
  width: number,
  columns: number,
  opts: { gap?: number; footer?: number } = {},
): Layout {
  const gap = opts.gap ?? GAP;
  const footer = opts.footer ?? CARD_FOOTER;
  const cols = Math.max(1, columns);
  const columnWidth = Math.max(0, (width - gap * (cols - 1)) / cols);
  const heights = new Array<number>(cols).fill(0);
  const placed: Placed[] = aspects.map((aspect, index) => {
    let column = 0;
    for (let c = 1; c < cols; c++) if ((heights[c] ?? 0) < (heights[column] ?? 0)) column = c;
    const top = heights[column] ?? 0;
    const height = Math.round(columnWidth * aspect) + footer;
    heights[column] = top + height + gap;
    return { index, column, left: column * (columnWidth + gap), top, width: columnWidth, height };
  });
  const tallest = Math.max(0, ...heights);
  return { columns: cols, columnWidth, placed, height: tallest > 0 ? tallest - gap : 0 };
}

/**
 * The cards that cross the band from `from` to `to` (px from the grid's top),
 * widened by `overscan` each way. The grid itself stays as tall as all of
 * them, so the page's scroll bar is right.
 */
export function visibleCards(layout: Layout, from: number, to: number, overscan: number): Placed[] {
  const lo = from - overscan;
  const hi = to + overscan;
  return layout.placed.filter((p) => p.top + p.height >= lo && p.top <= hi);
}

/** Spec 3 §9: the next page loads when the list's end is this close to the viewport's bottom. */
export const LOAD_MORE_OFFSET = 80;

/**
 * Whether to load the next page: the list's bottom edge (px, in the
 * viewport's coordinates, as `getBoundingClientRect().bottom`) is within
 * `offset` of the viewport's bottom, or above it.
 */
export function nearBottom(listBottom: number, viewportHeight: number, offset: number = LOAD_MORE_OFFSET): boolean {
  return listBottom - viewportHeight <= offset;
}
