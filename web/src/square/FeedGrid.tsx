import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { DependencyList } from 'react';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { nsfwModeAtom } from './atoms';
import { useErrorText } from '../tavern/useErrorText';
import { aspectOf, columnCount, layoutGrid, nearBottom, visibleCards } from './layout';
import type { FeedPage } from './types';
import { ACCOUNT_OBJ_TYPE, TAG_OBJ_TYPE } from './types';
import type { Card } from './types';
import { usePaged } from './usePaged';
import { WorkCard } from './WorkCard';

/** Cards within this many px above and below the viewport are rendered. */
export const OVERSCAN = 900;

/** A card's identity in a list. */
export function cardKey(c: Card): string {
  return `${c.obj_type}:${c.id}`;
}

function cardAspect(c: Card): number {
  if (c.obj_type === ACCOUNT_OBJ_TYPE || c.obj_type === TAG_OBJ_TYPE) return 0.6;
  if (c.cover.url === '') return 0.6;
  return aspectOf(c.cover);
}

interface Band {
  width: number;
  from: number;
  to: number;
}

export interface FeedGridProps {
  /** Reads a page (the first with a null cursor). */
  load: (cursor: string | null) => Promise<FeedPage>;
  /** What `load` reads: a change starts the list again. */
  deps: DependencyList;
  label: string;
  emptyText: string;
}

/**
 * A feed as a masonry grid (spec 3 §2): the column count follows the grid's
 * width, only the cards near the viewport are in the DOM (the grid keeps the
 * full height so the scroll bar is right), and the next page loads when the
 * grid's end comes within 80 px of the viewport's bottom (spec 3 §9).
 */
export function FeedGrid({ load, deps, label, emptyText }: FeedGridProps) {
  const t = useT();
  const errorText = useErrorText();
  // The server filters NSFW works by the viewer's mode: a change reloads.
  const nsfwMode = useAtomValue(nsfwModeAtom);
  const list = usePaged(load, cardKey, [...deps, nsfwMode]);
  const { state, more, retry } = list;
  const ref = useRef<HTMLDivElement>(null);
  const [band, setBand] = useState<Band>({ width: 0, from: 0, to: 1000 });

  const measure = useCallback(() => {
    const el = ref.current;
    if (!el) return;
    const rect = el.getBoundingClientRect();
    const viewport = window.innerHeight || document.documentElement.clientHeight;
    const next = { width: Math.round(el.clientWidth), from: Math.max(0, -rect.top), to: Math.max(0, -rect.top) + viewport };
    setBand((b) => (b.width === next.width && Math.abs(b.from - next.from) < 100 && Math.abs(b.to - next.to) < 100 ? b : next));
    if (nearBottom(rect.bottom, viewport)) more();
  }, [more]);

  useLayoutEffect(() => {
    let frame = 0;
    const onScroll = () => {
      if (frame !== 0) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        measure();
      });
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    window.addEventListener('resize', onScroll);
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(onScroll);
    if (ref.current) observer?.observe(ref.current);
    measure();
    return () => {
      window.removeEventListener('scroll', onScroll);
      window.removeEventListener('resize', onScroll);
      observer?.disconnect();
      if (frame !== 0) cancelAnimationFrame(frame);
    };
  }, [measure]);

  // A page that arrived may leave the grid short of the viewport: check again.
  useEffect(() => {
    if (state.loaded && !state.loading) measure();
  }, [state.loaded, state.loading, state.items.length, measure]);

  const aspects = useMemo(() => state.items.map(cardAspect), [state.items]);
  const layout = useMemo(() => layoutGrid(aspects, band.width, columnCount(band.width)), [aspects, band.width]);
  const shown = visibleCards(layout, band.from, band.to, OVERSCAN);

  return (
    <div className="sq-feed">
      <div
        ref={ref}
        className="sq-grid"
        role="list"
        aria-label={label}
        aria-busy={state.loading}
        data-testid="feed-grid"
        data-columns={layout.columns}
        data-count={state.items.length}
        style={{ height: layout.height }}
      >
        {shown.map((p) => {
          const card = state.items[p.index];
          if (!card) return null;
          return (
            <div key={cardKey(card)} role="listitem" className="sq-grid__cell" style={{ left: p.left, top: p.top, width: p.width, height: p.height }}>
              <WorkCard card={card} />
            </div>
          );
        })}
      </div>
      {state.error !== null && (
        <p className="sq-note sq-error" role="alert">
          {errorText(state.error)}{' '}
          <button type="button" className="button button--link" onClick={retry}>
            {t('square.retry')}
          </button>
        </p>
      )}
      {state.loading && (
        <p className="sq-note" aria-live="polite">
          {t('square.loading')}
        </p>
      )}
      {state.loaded && !state.loading && state.error === null && state.items.length === 0 && <p className="sq-note sq-empty">{emptyText}</p>}
      {state.loaded && !state.loading && state.error === null && state.items.length > 0 && state.cursor === null && (
        <p className="sq-note muted">{t('square.end')}</p>
      )}
    </div>
  );
}
