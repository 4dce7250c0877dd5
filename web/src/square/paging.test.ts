import { describe, expect, it } from 'vitest';
import { canLoadMore, emptyPaged, pagingReducer } from './paging';
import type { Paged, PagingAction } from './paging';

type Item = { id: string; n: number };
const reduce = pagingReducer<Item>((i) => i.id);
const it_ = (id: string, n = 0): Item => ({ id, n });

function run(actions: PagingAction<Item>[], from: Paged<Item> = emptyPaged<Item>()): Paged<Item> {
  return actions.reduce(reduce, from);
}

describe('cursor paging', () => {
  it('appends pages and ends on a null cursor', () => {
    const s = run([
      { type: 'request', generation: 0 },
      { type: 'page', generation: 0, items: [it_('a'), it_('b')], cursor: 'c1' },
    ]);
    expect(s.items.map((i) => i.id)).toEqual(['a', 'b']);
    expect(canLoadMore(s)).toBe(true);
    const t = run([{ type: 'page', generation: 0, items: [it_('c')], cursor: null }], s);
    expect(t.items.map((i) => i.id)).toEqual(['a', 'b', 'c']);
    expect(t.cursor).toBeNull();
    expect(canLoadMore(t)).toBe(false);
  });

  it('shows an id once when a page repeats it', () => {
    const s = run([
      { type: 'page', generation: 0, items: [it_('a', 1), it_('b', 1)], cursor: 'c1' },
      { type: 'page', generation: 0, items: [it_('b', 2), it_('c', 2), it_('c', 3)], cursor: 'c2' },
    ]);
    expect(s.items).toEqual([it_('a', 1), it_('b', 1), it_('c', 2)]);
    expect(s.cursor).toBe('c2');
  });

  it('ends a list whose next page brings nothing new', () => {
    const s = run([
      { type: 'page', generation: 0, items: [it_('a')], cursor: 'c1' },
      { type: 'page', generation: 0, items: [it_('a')], cursor: 'c2' },
    ]);
    expect(s.cursor).toBeNull();
    expect(canLoadMore(s)).toBe(false);
  });

  it('drops answers of an older generation', () => {
    const s = run([
      { type: 'page', generation: 0, items: [it_('old')], cursor: 'c' },
      { type: 'reset', generation: 1 },
      { type: 'request', generation: 1 },
      { type: 'page', generation: 0, items: [it_('late')], cursor: 'x' },
      { type: 'failed', generation: 0, error: new Error('late') },
    ]);
    expect(s.items).toEqual([]);
    expect(s.loading).toBe(true);
    expect(s.error).toBeNull();
  });

  it('keeps the cursor after a failure and allows no more until a retry', () => {
    const s = run([
      { type: 'page', generation: 0, items: [it_('a')], cursor: 'c1' },
      { type: 'request', generation: 0 },
      { type: 'failed', generation: 0, error: new Error('boom') },
    ]);
    expect(s.cursor).toBe('c1');
    expect(canLoadMore(s)).toBe(false);
    const r = run([{ type: 'request', generation: 0 }], s);
    expect(r.error).toBeNull();
    expect(r.loading).toBe(true);
  });

  it('updates loaded items in place', () => {
    const s = run([
      { type: 'page', generation: 0, items: [it_('a'), it_('b')], cursor: null },
      { type: 'update', f: (items) => items.filter((i) => i.id !== 'a') },
    ]);
    expect(s.items.map((i) => i.id)).toEqual(['b']);
  });
});
