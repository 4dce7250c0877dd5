// Wire types of the ornament shop (protocol/src/ornament.rs): the shop's
// ornaments, a page of them with the viewer's flags, purchases and what an
// account wears.

export type Slot = 'avatar' | 'work_frame';
export const SLOTS: readonly Slot[] = ['avatar', 'work_frame'];

export interface Ornament {
  ornament_id: string;
  slot: Slot;
  name: string;
  description: string;
  /** Credits. */
  price: number;
  image: { url: string };
  active: boolean;
  sort: number;
  /** Stock of a limited ornament; null: unlimited. */
  limited?: number | null;
  sold: number;
}

/** An ornament of the shop with the viewer's flags. */
export interface ShopItem extends Ornament {
  owned: boolean;
  worn: boolean;
}

export interface ShopPage {
  items: ShopItem[];
  next_cursor: string | null;
}

export interface BuyResult {
  ornament_id: string;
  charged: number;
  bought: boolean;
  balance: number;
}

/** What an account wears: image URLs and ids per slot. */
export interface Worn {
  avatar: string | null;
  avatar_id: string | null;
  work_frame: string | null;
  work_frame_id: string | null;
}

export interface OrnamentOrder {
  ornament_id: string;
  slot: Slot;
  name: string;
  image: { url: string };
  price: number;
  ledger_key: string;
  at: number;
}

export interface OrderPage {
  items: OrnamentOrder[];
  next_cursor: string | null;
}

export interface Assets {
  balance: number;
  held: number;
  available: number;
}

/** What an operator saves (`admin/ornament/upsert`); no id adds one. */
export interface OrnamentDraft {
  ornament_id?: string | null;
  slot: Slot;
  name: string;
  description: string;
  price: number;
  image: { url: string };
  active: boolean;
  sort: number;
  limited: number | null;
}
