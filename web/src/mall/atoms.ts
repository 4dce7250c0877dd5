// Atoms owned by the mall: its popups (VIP perks, recharge, half-price, manual transfer),
// the subscription banner's visibility and the last order-paid push. Payment info and
// credits live with their owners (generator/atoms paymentInfoAtom and balanceAtom,
// tasks/atoms creditsAtom); mall/refresh.ts writes them.
import { atom } from '../state/jotai';
import type { CreatedOrder, DiscountPopupInfo } from '../api/mall';

/** The VIP pop-up: closed, or open (why: the header badge, a member-only error, the banner). */
export type VipPopupState = { open: false } | { open: true; reason: 'badge' | 'member-only' | 'banner' | 'limit' | 'server' };
export const vipPopupAtom = atom<VipPopupState>({ open: false });

/** The recharge dialog (a generate answered CoinsNotEnough). */
export const rechargeOpenAtom = atom(false);

/** Today's half-price offer while it is shown (`payment/discount/popup-info` said show). */
export const discountPopupAtom = atom<DiscountPopupInfo | null>(null);

/** The subscription banner is on screen. */
export const bannerShownAtom = atom(false);

/** A manual-provider order waiting for a bank transfer: its transfer instructions are shown. */
export const manualOrderAtom = atom<CreatedOrder | null>(null);

/** The last order a frame 13 `order.paid` named, with a counter so the same id twice still changes. */
export const paidPushAtom = atom<{ orderId: string | null; n: number }>({ orderId: null, n: 0 });
