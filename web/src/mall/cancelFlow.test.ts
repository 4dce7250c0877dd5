// The cancel flow: feedback always first; the retention offer when the server shows one (accept
// keeps the plan, decline cancels); straight to cancellation when it does not or was used.
import { describe, expect, it, vi } from 'vitest';
import type { RetentionInfo, SubscriptionView } from '../api/mall';
import { acceptOffer, declineOffer, submitCancel } from './cancelFlow';
import { subscription } from './testing';

function calls(offer: Partial<RetentionInfo>) {
  const log: string[] = [];
  return {
    log,
    mall: {
      feedback: vi.fn(async (sub: string, reason: string, text: string) => void log.push(`feedback ${sub} ${reason} ${text}`)),
      retentionInfo: vi.fn(async (): Promise<RetentionInfo> => {
        log.push('retention');
        return { show: false, percent_off: 30, price: 9900, discounted_price: 6930, sub_id: 'sub-1', ...offer };
      }),
      cancel: vi.fn(async (sub: string, reason: string): Promise<SubscriptionView> => {
        log.push(`cancel ${sub} ${reason}`);
        return subscription({ status: 'canceled', auto_renew: false });
      }),
      acceptRetention: vi.fn(async (sub: string): Promise<SubscriptionView> => {
        log.push(`accept ${sub}`);
        return subscription({ retention_used: true });
      }),
    },
  };
}

describe('cancel flow', () => {
  it('shows the retention offer when the server has one; accepting keeps the plan', async () => {
    const { mall, log } = calls({ show: true });
    const sub = subscription();
    const out = await submitCancel(mall, sub, 'too_expensive', 'pricey');
    expect(out.kind).toBe('offer');
    expect(log).toEqual(['feedback sub-1 too_expensive pricey', 'retention']);
    expect(mall.cancel).not.toHaveBeenCalled();
    if (out.kind !== 'offer') return;
    expect(out.offer.percent_off).toBe(30);
    const kept = await acceptOffer(mall, sub, out.offer);
    expect(kept.retention_used).toBe(true);
    expect(log.at(-1)).toBe('accept sub-1');
    expect(mall.cancel).not.toHaveBeenCalled();
  });

  it('declining the offer cancels with the same reason and text', async () => {
    const { mall, log } = calls({ show: true });
    const sub = subscription();
    const out = await submitCancel(mall, sub, 'not_using', '');
    expect(out.kind).toBe('offer');
    const canceled = await declineOffer(mall, sub, 'not_using', '');
    expect(canceled.status).toBe('canceled');
    expect(log).toEqual(['feedback sub-1 not_using ', 'retention', 'cancel sub-1 not_using']);
    expect(mall.acceptRetention).not.toHaveBeenCalled();
  });

  it('cancels at once without an offer, or when the offer was already used', async () => {
    const none = calls({ show: false });
    const out = await submitCancel(none.mall, subscription(), 'quality', 'meh');
    expect(out.kind).toBe('canceled');
    expect(none.log).toEqual(['feedback sub-1 quality meh', 'retention', 'cancel sub-1 quality']);

    const used = calls({ show: true });
    const again = await submitCancel(used.mall, subscription({ retention_used: true }), 'other', '');
    expect(again.kind).toBe('canceled');
    expect(used.mall.retentionInfo).not.toHaveBeenCalled();
  });
});
