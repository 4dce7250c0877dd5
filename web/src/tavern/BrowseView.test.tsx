// The tavern's character grid: the first page, "Show more" appending the next without
// duplicates, a "more" page of an old query dropped once the filters changed, and a failed
// first page shown as an error with a retry and no cards.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, NETWORK_ERROR_CODE, NETWORK_ERROR_KEY } from '../api/client';
import { en } from '../i18n/en';
import { appStore, Provider } from '../state/jotai';
import { tavernApi } from './actions';
import type { CardPage, CharacterQuery } from './api';
import { characterQueryAtom } from './atoms';
import { BrowseView } from './BrowseView';
import type { CharacterCard } from './model';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const ALL: CharacterQuery = { order_by: 'new', genders: [], character_type: 0, keyword: '' };

/** One call of `tavernApi.list`, answered by hand. */
interface Call {
  query: CharacterQuery;
  cursor: string | null;
  resolve: (page: CardPage) => void;
  reject: (error: unknown) => void;
}

let container: HTMLDivElement;
let root: Root;
let calls: Call[];

function card(id: string): CharacterCard {
  return {
    id,
    name: `Card ${id}`,
    description: '',
    avatar: '',
    tags: [],
    gender: 'female',
    character_type: 1,
    chat_count: 0,
    publish_at: null,
    owner: { id: 'o', name: '' },
    published: null,
  };
}

function page(ids: string[], cursor: string | null): CardPage {
  return { items: ids.map(card), cursor };
}

beforeEach(() => {
  calls = [];
  appStore.set(characterQueryAtom, ALL);
  vi.spyOn(tavernApi, 'list').mockImplementation(
    (query, cursor) => new Promise<CardPage>((resolve, reject) => calls.push({ query, cursor, resolve, reject })),
  );
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  act(() => {
    root.render(
      <Provider store={appStore}>
        <BrowseView />
      </Provider>,
    );
  });
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
  appStore.set(characterQueryAtom, ALL);
});

/** Settles a call and lets React apply what follows. */
async function settle(run: () => void) {
  await act(async () => {
    run();
    await Promise.resolve();
    await Promise.resolve();
  });
}

function call(i: number): Call {
  const c = calls[i];
  if (!c) throw new Error(`no call ${i} (${calls.length} made)`);
  return c;
}

function names(): string[] {
  return [...container.querySelectorAll('[data-testid="character-card"] h3')].map((h) => h.textContent ?? '');
}

function button(text: string): HTMLButtonElement | undefined {
  return [...container.querySelectorAll('button')].find((b) => b.textContent === text);
}

function click(text: string) {
  const b = button(text);
  if (!b) throw new Error(`no button ${text}`);
  act(() => b.click());
}

function alertText(): string | null {
  return container.querySelector('[role="alert"]')?.textContent ?? null;
}

describe('BrowseView', () => {
  it('shows the first page and appends the next on "Show more", without duplicates', async () => {
    expect(calls.map((c) => [c.query, c.cursor])).toEqual([[ALL, null]]);
    expect(container.textContent).toContain(en['tavern.loading']);
    await settle(() => call(0).resolve(page(['a', 'b'], 'c1')));
    expect(names()).toEqual(['Card a', 'Card b']);
    expect(container.textContent).not.toContain(en['tavern.loading']);

    click(en['tavern.loadMore']);
    expect(calls.map((c) => [c.query, c.cursor])).toEqual([
      [ALL, null],
      [ALL, 'c1'],
    ]);
    expect(button(en['tavern.loadMore'])).toBeUndefined();
    // "b" moved onto the next page meanwhile: it stays once.
    await settle(() => call(1).resolve(page(['b', 'c'], 'c2')));
    expect(names()).toEqual(['Card a', 'Card b', 'Card c']);

    // An empty page is the end: no more button.
    click(en['tavern.loadMore']);
    expect(call(2).cursor).toBe('c2');
    await settle(() => call(2).resolve(page([], 'c3')));
    expect(names()).toEqual(['Card a', 'Card b', 'Card c']);
    expect(button(en['tavern.loadMore'])).toBeUndefined();
    expect(alertText()).toBeNull();
  });

  it('drops a "more" page of the old query that answers after the new query\'s first page', async () => {
    await settle(() => call(0).resolve(page(['a', 'b'], 'c1')));
    click(en['tavern.loadMore']);
    expect(call(1).cursor).toBe('c1');

    const girls: CharacterQuery = { ...ALL, genders: ['female'] };
    act(() => appStore.set(characterQueryAtom, girls));
    expect(call(2)).toMatchObject({ query: girls, cursor: null });
    await settle(() => call(2).resolve(page(['x', 'y'], 'g1')));
    expect(names()).toEqual(['Card x', 'Card y']);

    await settle(() => call(1).resolve(page(['c', 'd'], 'c2')));
    expect(names()).toEqual(['Card x', 'Card y']);
    // "Show more" goes on from the new query's cursor.
    click(en['tavern.loadMore']);
    expect(call(3)).toMatchObject({ query: girls, cursor: 'g1' });
  });

  it('drops a failed "more" page of the old query too', async () => {
    await settle(() => call(0).resolve(page(['a'], 'c1')));
    click(en['tavern.loadMore']);
    act(() => appStore.set(characterQueryAtom, { ...ALL, keyword: 'x' }));
    await settle(() => call(2).resolve(page(['x'], null)));
    await settle(() => call(1).reject(new ApiError({ code: NETWORK_ERROR_CODE, key: NETWORK_ERROR_KEY, msg: '' }, 0)));
    expect(names()).toEqual(['Card x']);
    expect(alertText()).toBeNull();
  });

  it('shows a failed first page as an error with a retry and no cards; the retry loads', async () => {
    await settle(() => call(0).reject(new ApiError({ code: NETWORK_ERROR_CODE, key: NETWORK_ERROR_KEY, msg: '' }, 0)));
    expect(alertText()).toBe(`${en.NetworkError} ${en['tavern.retry']}`);
    expect(names()).toEqual([]);
    expect(button(en['tavern.loadMore'])).toBeUndefined();
    expect(container.querySelector('.tavern__empty')).toBeNull();

    click(en['tavern.retry']);
    expect(calls.map((c) => [c.query, c.cursor])).toEqual([
      [ALL, null],
      [ALL, null],
    ]);
    await settle(() => call(1).resolve(page(['a'], 'c1')));
    expect(alertText()).toBeNull();
    expect(names()).toEqual(['Card a']);
    expect(button(en['tavern.loadMore'])).toBeDefined();
  });

  it('drops a "more" page that answers after a retry reloaded the first page', async () => {
    const offline = new ApiError({ code: NETWORK_ERROR_CODE, key: NETWORK_ERROR_KEY, msg: '' }, 0);
    await settle(() => call(0).resolve(page(['a'], 'c1')));
    click(en['tavern.loadMore']);
    await settle(() => call(1).reject(offline));
    // The failed "more" keeps the cards and offers both a retry and another try at "more".
    expect(alertText()).toBe(`${en.NetworkError} ${en['tavern.retry']}`);
    expect(names()).toEqual(['Card a']);
    click(en['tavern.loadMore']);
    expect(call(2).cursor).toBe('c1');
    // Retry while that page loads: the reloaded first page answers first, then the old page.
    click(en['tavern.retry']);
    expect(call(3).cursor).toBeNull();
    await settle(() => call(3).resolve(page(['p', 'q'], 'c9')));
    expect(names()).toEqual(['Card p', 'Card q']);
    expect(alertText()).toBeNull();
    await settle(() => call(2).resolve(page(['b'], 'c2')));
    expect(names()).toEqual(['Card p', 'Card q']);
    click(en['tavern.loadMore']);
    expect(call(4).cursor).toBe('c9');
  });
});
