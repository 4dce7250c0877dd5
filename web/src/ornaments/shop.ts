// The shop's pure rules for the page: what an item's button does, whether
// the balance covers it, the stock line, and how a wear or take-off answer
// changes the listed flags.
import type { ShopItem, Slot, Worn } from './types';

export type ItemAction = 'buy' | 'wear' | 'takeOff' | 'soldOut' | 'login';

/** What the item's main button offers the viewer. */
export function itemAction(item: ShopItem, loggedIn: boolean): ItemAction {
  if (!loggedIn) return 'login';
  if (item.worn) return 'takeOff';
  if (item.owned) return 'wear';
  if (stockLeft(item) === 0) return 'soldOut';
  return 'buy';
}

/** Left in stock; null when unlimited. */
export function stockLeft(item: Pick<ShopItem, 'limited' | 'sold'>): number | null {
  if (item.limited === null || item.limited === undefined) return null;
  return Math.max(0, item.limited - item.sold);
}

/** Whether `available` credits pay for `price`. */
export function canAfford(price: number, available: number | null): boolean {
  return available !== null && available >= price;
}

/** The items after the server answered what is worn now: one worn per slot. */
export function applyWorn(items: ShopItem[], worn: Worn): ShopItem[] {
  const wornId = (slot: Slot) => (slot === 'avatar' ? worn.avatar_id : worn.work_frame_id);
  return items.map((i) => {
    const on = wornId(i.slot) === i.ornament_id;
    return on === i.worn ? i : { ...i, worn: on };
  });
}

/** The item marked owned after a purchase. */
export function applyBought(items: ShopItem[], ornamentId: string): ShopItem[] {
  return items.map((i) => (i.ornament_id === ornamentId ? { ...i, owned: true, sold: i.limited !== null && i.limited !== undefined ? i.sold + 1 : i.sold } : i));
}
