// The cancel flow's steps without the screen: feedback first, then the retention offer when
// the server has one (and it was not used), else the cancellation itself.
import type { CancelReason, RetentionInfo, SubscriptionView } from '../api/mall';
import type { MallApi } from './api';

export type CancelOutcome = { kind: 'offer'; offer: RetentionInfo } | { kind: 'canceled'; sub: SubscriptionView };

type Calls = Pick<MallApi, 'feedback' | 'retentionInfo' | 'cancel' | 'acceptRetention'>;

/** Sends the feedback; answers the retention offer to show, or cancels at once when there is none. */
export async function submitCancel(mall: Calls, sub: SubscriptionView, reason: CancelReason, text: string): Promise<CancelOutcome> {
  await mall.feedback(sub.sub_id, reason, text);
  const offer = sub.retention_used ? null : await mall.retentionInfo().catch(() => null);
  if (offer && offer.show && offer.price !== null && offer.discounted_price !== null) return { kind: 'offer', offer };
  return { kind: 'canceled', sub: await mall.cancel(sub.sub_id, reason, text) };
}

/** The offer was declined: cancel. */
export function declineOffer(mall: Calls, sub: SubscriptionView, reason: CancelReason, text: string): Promise<SubscriptionView> {
  return mall.cancel(sub.sub_id, reason, text);
}

/** The offer was accepted: the subscription stays with the discount on its next period. */
export function acceptOffer(mall: Calls, sub: SubscriptionView, offer: RetentionInfo): Promise<SubscriptionView> {
  return mall.acceptRetention(offer.sub_id ?? sub.sub_id);
}
