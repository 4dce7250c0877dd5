import { describe, expect, it } from 'vitest';
import { applyBought, applyWorn, canAfford, itemAction, stockLeft } from './shop';
import type { ShopItem } from './types';

const item = (id: string, extra: Partial<ShopItem> = {}): ShopItem => ({
  ornament_id: id, slot: 'avatar', name: id, description: '', price: 100, image: { url: `/files/${id}.png` },
  active: true, sort: 0, limited: null, sold: 0, owned: false, worn: false, ...extra,
});

describe('the shop rules', () => {
  it('offers the right action', () => {
    const table: Array<[Partial<ShopItem>, boolean, string]> = [
      [{}, false, 'login'],
      [{}, true, 'buy'],
      [{ owned: true }, true, 'wear'],
      [{ owned: true, worn: true }, true, 'takeOff'],
      [{ limited: 2, sold: 2 }, true, 'soldOut'],
      [{ limited: 2, sold: 2, owned: true }, true, 'wear'],
      [{ limited: 2, sold: 1 }, true, 'buy'],
    ];
    for (const [extra, loggedIn, want] of table) expect(itemAction(item('a', extra), loggedIn), JSON.stringify(extra)).toBe(want);
  });

  it('counts stock and credits', () => {
    expect(stockLeft({ limited: null, sold: 5 })).toBeNull();
    expect(stockLeft({ limited: 3, sold: 5 })).toBe(0);
    expect(stockLeft({ limited: 3, sold: 1 })).toBe(2);
    expect(canAfford(100, 100)).toBe(true);
    expect(canAfford(100, 99)).toBe(false);
    expect(canAfford(0, null)).toBe(false);
  });

  it('keeps one worn per slot and marks purchases', () => {
    const items = [item('a', { owned: true, worn: true }), item('b', { owned: true }), item('f', { slot: 'work_frame', owned: true, worn: true })];
    const next = applyWorn(items, { avatar: '/files/b.png', avatar_id: 'b', work_frame: '/files/f.png', work_frame_id: 'f' });
    expect(next.map((i) => [i.ornament_id, i.worn])).toEqual([['a', false], ['b', true], ['f', true]]);
    expect(next[2]).toBe(items[2]);
    const off = applyWorn(next, { avatar: null, avatar_id: null, work_frame: null, work_frame_id: null });
    expect(off.every((i) => !i.worn)).toBe(true);
    const bought = applyBought([item('c', { limited: 5, sold: 1 })], 'c');
    expect([bought[0]?.owned, bought[0]?.sold]).toEqual([true, 2]);
  });
});
