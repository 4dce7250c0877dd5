// Frame 13 pushes about payments into the mall's atoms: `{kind: "order.paid", order_id}`
// tells the return page at once; `{kind: "account.payment", payment}` carries the new
// payment info. Either marks the payment facts stale so MallEffects reads them again.
// Free of imports from app/services so that services.ts can wire it into onPush.
import { tokenAtom } from '../account/atoms';
import type { PaymentInfo } from '../api/types';
import { paymentInfoAtom } from '../generator/atoms';
import type { PushFrame } from '../socket/frames';
import { FrameType } from '../socket/frames';
import { appStore, atom } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import { paidPushAtom } from './atoms';

/** Bumped when payment info or credits changed on the server. */
export const paymentStaleAtom = atom(0);

function asPaymentInfo(v: unknown): PaymentInfo | null {
  if (typeof v !== 'object' || v === null) return null;
  const p = v as Record<string, unknown>;
  if (typeof p.activeState !== 'boolean' || typeof p.liteActiveState !== 'boolean') return null;
  return {
    activeState: p.activeState,
    liteActiveState: p.liteActiveState,
    infiniteQueue: p.infiniteQueue === true,
    productLevel: typeof p.productLevel === 'number' ? p.productLevel : 0,
  };
}

/** Applies one pushed frame; other frames are left to their features. */
export function applyMallFrame(store: AppStore, frame: PushFrame): void {
  if (frame.type !== FrameType.Notification) return;
  const c = frame.content;
  if (c.kind === 'order.paid') {
    const orderId = typeof c.order_id === 'string' ? c.order_id : null;
    store.set(paidPushAtom, (p) => ({ orderId, n: p.n + 1 }));
    store.set(paymentStaleAtom, (n) => n + 1);
  } else if (c.kind === 'account.payment') {
    const info = asPaymentInfo(c.payment);
    const token = store.get(tokenAtom);
    if (info && token !== null) store.set(paymentInfoAtom, { token, info });
    store.set(paymentStaleAtom, (n) => n + 1);
  }
}

/** Pass to the socket client's push dispatcher. */
export function mallPushHook(frame: PushFrame): void {
  applyMallFrame(appStore, frame);
}

/** After a resume that lost frames: read the payment facts again. */
export function mallResyncHook(): void {
  appStore.set(paymentStaleAtom, (n) => n + 1);
}
