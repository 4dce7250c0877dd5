// The square's grid as a component: the first page, the next page when the
// grid's end nears the viewport (spec 3 §9), cards shown once when a page
// repeats one, only the cards near the viewport in the DOM, a failed page
// with a retry, and an older list's late page dropped.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client';
import { en } from '../i18n/en';
import { appStore, Provider } from '../state/jotai';
import { accountNsfwModeAtom, nsfwModeAtom } from './atoms';
import { FeedGrid } from './FeedGrid';
import type { Card, FeedPage } from './types';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

interface Call {
  cursor: string | null;
  resolve: (page: FeedPage) => void;
  reject: (e: unknown) => void;
}

let container: HTMLDivElement;
let root: Root;
let calls: Call[];
/** Where the grid's box is, as getBoundingClientRect would say. */
let rect: { top: number; bottom: number };

function card(id: string, extra: Partial<Card> = {}): Card {
  return {
    obj_type: 4,
    content_sub_type: 'picture',
    id,
    title: `Work ${id}`,
    cover: { url: `/files/${id}.png`, width: 100, height: 100 },
    image_count: 1,
    author: { id: 'u1', name: 'Ada' },
    tags: [],
    nsfw: false,
    likes: 3,
    collects: 0,
    comments: 0,
    views: 0,
    liked: false,
    collected: false,
    create_at: 1,
    ...extra,
  };
}

function load(cursor: string | null): Promise<FeedPage> {
  return new Promise((resolve, reject) => calls.push({ cursor, resolve, reject }));
}

function render(deps: unknown[] = ['a']) {
  act(() => {
    root.render(
      <Provider store={appStore}>
        <FeedGrid load={load} deps={deps} label="Works" emptyText="Nothing" />
      </Provider>,
    );
  });
}

async function settle(run: () => void) {
  await act(async () => {
    run();
    for (let i = 0; i < 4; i++) await Promise.resolve();
  });
}

function titles(): string[] {
  return [...container.querySelectorAll('[data-testid="work-card"] .sq-card__title')].map((a) => a.textContent ?? '');
}

function call(i: number): Call {
  const c = calls[i];
  if (!c) throw new Error(`no call ${i} (${calls.length} made)`);
  return c;
}

beforeEach(() => {
  calls = [];
  rect = { top: 0, bottom: 5000 };
  vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockImplementation(function (this: HTMLElement) {
    return this.classList.contains('sq-grid')
      ? ({ top: rect.top, bottom: rect.bottom, left: 0, right: 400, width: 400, height: rect.bottom - rect.top, x: 0, y: rect.top } as DOMRect)
      : ({ top: 0, bottom: 0, left: 0, right: 0, width: 0, height: 0, x: 0, y: 0 } as DOMRect);
  });
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockImplementation(function (this: HTMLElement) {
    return this.classList.contains('sq-grid') ? 400 : 0;
  });
  vi.stubGlobal('innerHeight', 800);
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

describe('FeedGrid', () => {
  it('loads the next page only when the end is within 80 px of the viewport bottom, without duplicates', async () => {
    render();
    expect(calls.map((c) => c.cursor)).toEqual([null]);
    await settle(() => call(0).resolve({ items: [card('a'), card('b')], next_cursor: 'c1' }));
    expect(titles()).toEqual(['Work a', 'Work b']);
    // 400 px wide: 2 columns (layout.ts).
    expect(container.querySelector('[data-testid="feed-grid"]')?.getAttribute('data-columns')).toBe('2');
    // The grid ends 4200 px below the viewport: no second call.
    expect(calls).toHaveLength(1);

    // Scrolled to 81 px above the end: still nothing; at 80 px: the next page.
    rect = { top: -4119, bottom: 881 };
    await settle(() => window.dispatchEvent(new Event('scroll')));
    await act(async () => new Promise((r) => requestAnimationFrame(() => r(undefined))));
    expect(calls).toHaveLength(1);
    rect = { top: -4120, bottom: 880 };
    await settle(() => window.dispatchEvent(new Event('scroll')));
    await act(async () => new Promise((r) => requestAnimationFrame(() => r(undefined))));
    expect(calls.map((c) => c.cursor)).toEqual([null, 'c1']);

    // More scrolling while the page is being read asks for nothing more.
    await settle(() => window.dispatchEvent(new Event('scroll')));
    await act(async () => new Promise((r) => requestAnimationFrame(() => r(undefined))));
    expect(calls).toHaveLength(2);

    rect = { top: 0, bottom: 5000 };
    await settle(() => call(1).resolve({ items: [card('b'), card('c')], next_cursor: null }));
    expect(titles()).toEqual(['Work a', 'Work b', 'Work c']);
    expect(container.textContent).toContain(en['square.end']);
  });

  it('keeps only the cards near the viewport in the DOM', async () => {
    render();
    const many = Array.from({ length: 200 }, (_, i) => card(`w${i}`));
    await settle(() => call(0).resolve({ items: many, next_cursor: null }));
    const grid = container.querySelector<HTMLElement>('[data-testid="feed-grid"]');
    expect(grid?.getAttribute('data-count')).toBe('200');
    const shown = container.querySelectorAll('[data-testid="work-card"]').length;
    expect(shown).toBeGreaterThan(4);
    expect(shown).toBeLessThan(60);
    // The grid keeps the height of all 200 cards (100 rows of 194 + 64 + 12 px, less the last gap).
    expect(grid?.style.height).toBe(`${100 * (194 + 64 + 12) - 12}px`);
  });

  it('shows a failed page with a retry that asks for the same page again', async () => {
    render();
    await settle(() => call(0).reject(new ApiError({ code: 50000, key: 'ServerError', msg: 'boom' }, 500)));
    expect(container.querySelector('[role="alert"]')?.textContent).toContain(en.ServerError);
    const retry = [...container.querySelectorAll('button')].find((b) => b.textContent === en['square.retry']);
    act(() => retry?.click());
    expect(calls.map((c) => c.cursor)).toEqual([null, null]);
    await settle(() => call(1).resolve({ items: [], next_cursor: null }));
    expect(container.textContent).toContain('Nothing');
  });

  it('drops a late page of the list it replaced', async () => {
    render(['a']);
    render(['b']);
    expect(calls).toHaveLength(2);
    await settle(() => call(1).resolve({ items: [card('new')], next_cursor: null }));
    await settle(() => call(0).resolve({ items: [card('old')], next_cursor: null }));
    expect(titles()).toEqual(['Work new']);
  });

  it('blurs an NSFW card until the viewer reveals it', async () => {
    render();
    await settle(() => call(0).resolve({ items: [card('n', { nsfw: true })], next_cursor: null }));
    expect(container.querySelector('.sq-card__cover img')?.classList.contains('sq-blur')).toBe(true);
    act(() => container.querySelector<HTMLButtonElement>('[data-testid="nsfw-reveal"]')?.click());
    expect(container.querySelector('.sq-card__cover img')?.classList.contains('sq-blur')).toBe(false);
    // The rating stays on the card.
    expect(container.querySelector('[data-testid="nsfw-badge"]')?.textContent).toBe(en['square.nsfw.badge']);
  });

  it('shows a rating badge on suggestive and NSFW cards, none on safe ones', async () => {
    render();
    await settle(() =>
      call(0).resolve({
        items: [card('x', { nsfw: true, rating: 'nsfw' }), card('g', { rating: 'suggestive' }), card('s', { rating: 'safe' })],
        next_cursor: null,
      }),
    );
    const badges = [...container.querySelectorAll<HTMLElement>('.sq-card__rating')].map((b) => b.dataset.rating);
    expect(badges).toEqual(['nsfw', 'suggestive']);
    expect(container.querySelector('[data-testid="rating-badge"]')?.textContent).toBe(en['square.nsfw.rating.suggestive']);
    // Only the NSFW card is blurred.
    expect(container.querySelectorAll('.sq-blur')).toHaveLength(1);
  });

  it('leaves NSFW cards out in mode hide, reloads on a change and shows them unblurred in mode show', async () => {
    // A signed-in account's mode (visitors cannot choose show).
    act(() => appStore.set(accountNsfwModeAtom, 'hide'));
    try {
      render();
      await settle(() => call(0).resolve({ items: [card('n', { nsfw: true }), card('s')], next_cursor: null }));
      expect(titles()).toEqual(['Work s']);
      // A mode change asks the server again (it filters by the mode).
      act(() => appStore.set(nsfwModeAtom, 'show'));
      expect(calls).toHaveLength(2);
      await settle(() => call(1).resolve({ items: [card('n', { nsfw: true }), card('s')], next_cursor: null }));
      expect(titles()).toEqual(['Work n', 'Work s']);
      expect(container.querySelector('.sq-card__cover img')?.classList.contains('sq-blur')).toBe(false);
      expect(container.querySelector('[data-testid="nsfw-reveal"]')).toBeNull();
    } finally {
      act(() => appStore.set(accountNsfwModeAtom, null));
    }
  });
});
