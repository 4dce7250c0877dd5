import { describe, expect, it } from 'vitest';
import { aspectOf, columnCount, GAP, layoutGrid, MIN_CARD_WIDTH, nearBottom, visibleCards } from './layout';

describe('column count by width (spec 3 §2, §9)', () => {
  it.each([
    [0, 1],
    [220, 1],
    [299, 1],
    [300, 2],
    [358, 2],
    [639, 2],
    [640, 3],
    [960, 4],
    [1280, 5],
    [1679, 5],
    [1680, 6],
    [2099, 6],
    [2100, 7],
    [4000, 7],
  ])('%i px holds %i columns', (width, cols) => {
    expect(columnCount(width)).toBe(cols);
  });

  it('never makes a card narrower than the minimum card width', () => {
    for (let w = 140; w <= 2600; w += 7) {
      const cols = columnCount(w);
      if (cols > 1) expect((w - GAP * (cols - 1)) / cols, `width ${w}`).toBeGreaterThanOrEqual(MIN_CARD_WIDTH);
    }
    // A wide gap lowers the count rather than squeezing the cards.
    expect(columnCount(399, 120)).toBe(1);
    expect(columnCount(400, 120)).toBe(2);
  });

  it('grows monotonically with the width', () => {
    let last = 1;
    for (let w = 0; w <= 3000; w += 10) {
      const c = columnCount(w);
      expect(c).toBeGreaterThanOrEqual(last);
      last = c;
    }
  });
});

describe('masonry layout', () => {
  it('puts each card into the shortest column, leftmost on a tie', () => {
    // 2 columns of 100 px (gap 10), no footer: heights are width × aspect.
    const l = layoutGrid([2, 1, 0.5, 1], 210, 2, { gap: 10, footer: 0 });
    expect(l.columnWidth).toBe(100);
    expect(l.placed.map((p) => [p.column, p.top, p.height])).toEqual([
      [0, 0, 200],
      [1, 0, 100],
      [1, 110, 50],
      [1, 170, 100],
    ]);
    expect(l.placed[1]?.left).toBe(110);
    expect(l.height).toBe(270);
  });

  it('clamps odd pictures and treats unknown sizes as square', () => {
    expect(aspectOf({ width: 0, height: 0 })).toBe(1);
    expect(aspectOf({ width: 100, height: 1000 })).toBe(2);
    expect(aspectOf({ width: 1000, height: 10 })).toBe(0.5);
    expect(aspectOf({ width: 688, height: 1024 })).toBeCloseTo(1.488, 3);
  });

  it('an empty grid has no height', () => {
    expect(layoutGrid([], 500, 3).height).toBe(0);
  });

  it('renders only the cards near the viewport', () => {
    const l = layoutGrid(new Array<number>(100).fill(1), 100, 1, { gap: 0, footer: 0 });
    const shown = visibleCards(l, 1000, 1300, 100).map((p) => p.index);
    expect(shown[0]).toBe(8);
    expect(shown[shown.length - 1]).toBe(14);
    expect(visibleCards(l, 20000, 21000, 0)).toEqual([]);
  });
});

describe('infinite-scroll trigger (spec 3 §9: 80 px)', () => {
  it('fires when the list ends within 80 px of the viewport bottom', () => {
    expect(nearBottom(1000, 900)).toBe(false);
    expect(nearBottom(981, 900)).toBe(false);
    expect(nearBottom(980, 900)).toBe(true);
    expect(nearBottom(900, 900)).toBe(true);
    // A list shorter than the viewport keeps loading until it fills it.
    expect(nearBottom(300, 900)).toBe(true);
  });
});
