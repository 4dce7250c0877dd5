// The return page follows the order, shows progress, then what was granted, and refreshes the
// payment info and credits; an order.paid push makes it ask at once; a long wait offers a retry.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenAtom } from '../account/atoms';
import { api } from '../app/services';
import { balanceAtom, paymentInfoAtom, roleAtom } from '../generator/atoms';
import { en } from '../i18n/en';
import { locationAtom } from '../router/router';
import { FrameType } from '../socket/frames';
import { appStore } from '../state/jotai';
import { creditsAtom } from '../tasks/atoms';
import { applyMallFrame } from './pushHook';
import { ReturnPage } from './ReturnPage';
import { POLL_INTERVAL_MS, POLL_LIMIT_MS } from './rules';
import { mallApi } from './services';
import { buttonByText, order, render } from './testing';
import type { Rendered } from './testing';
import { act } from 'react';

let view: Rendered | null = null;
const FULL = { activeState: true, liteActiveState: false, infiniteQueue: true, productLevel: 2 };

beforeEach(() => {
  vi.useFakeTimers();
  appStore.set(tokenAtom, 'tok');
  appStore.set(paymentInfoAtom, { token: 'tok', info: { activeState: false, liteActiveState: false, infiniteQueue: false, productLevel: 0 } });
  appStore.set(locationAtom, { pathname: '/en/mall/return', search: '?order_id=o1', hash: '' });
  vi.spyOn(api, 'paymentInfo').mockResolvedValue(FULL);
  vi.spyOn(api, 'post').mockImplementation(async (path: string) => {
    if (path === '/api/v1/payment/assets/get') return { balance: 3200, held: 0, available: 3200, debt: 0 };
    throw new Error(`unexpected ${path}`);
  });
});

afterEach(() => {
  view?.unmount();
  view = null;
  vi.useRealTimers();
  appStore.set(tokenAtom, null);
  appStore.set(paymentInfoAtom, null);
  appStore.set(creditsAtom, null);
  appStore.set(balanceAtom, null);
});

async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

function status(): string | null {
  return view?.container.querySelector('[data-testid="order-status"]')?.getAttribute('data-status') ?? null;
}

describe('ReturnPage', () => {
  it('shows progress while pending, then the plan granted, and refreshes payment info and credits', async () => {
    const seq = ['pending', 'pending', 'paid'] as const;
    let i = 0;
    const fetch = vi
      .spyOn(mallApi, 'orderStatus')
      .mockImplementation(async () => order({ order_id: 'o1', kind: 'subscription', product_name: 'Full monthly', status: seq[Math.min(i++, 2)] ?? 'paid' }));
    view = render(<ReturnPage />);
    await advance(0);
    expect(status()).toBe('pending');
    expect(view.container.querySelector('progress')).not.toBeNull();
    expect(appStore.get(roleAtom)).toBe('free');
    await advance(POLL_INTERVAL_MS);
    expect(status()).toBe('pending');
    await advance(POLL_INTERVAL_MS);
    expect(status()).toBe('paid');
    expect(view.container.querySelector('progress')).toBeNull();
    expect(view.container.textContent).toContain(en['mall.return.paid']);
    expect(view.container.querySelector('[data-testid="order-granted"]')?.textContent).toBe('Full monthly is now active.');
    expect(fetch).toHaveBeenCalledTimes(3);
    expect(fetch).toHaveBeenCalledWith('o1');
    // The atoms the generator, header and task panel read are fresh.
    expect(appStore.get(paymentInfoAtom)).toEqual({ token: 'tok', info: FULL });
    expect(appStore.get(roleAtom)).toBe('paid');
    expect(appStore.get(creditsAtom)).toEqual({ coins: 3200, held: 0, available: 3200 });
    expect(appStore.get(balanceAtom)).toEqual({ token: 'tok', available: 3200 });
    await advance(10 * POLL_INTERVAL_MS);
    expect(fetch).toHaveBeenCalledTimes(3);
  });

  it('names the credits of a paid pack and the failure of a failed payment', async () => {
    vi.spyOn(mallApi, 'orderStatus').mockResolvedValueOnce(order({ status: 'paid', coins: 500 }));
    view = render(<ReturnPage />);
    await advance(0);
    expect(view.container.querySelector('[data-testid="order-granted"]')?.textContent).toBe('500 credits were added to your account.');
    view.unmount();
    vi.spyOn(mallApi, 'orderStatus').mockResolvedValue(order({ status: 'failed' }));
    view = render(<ReturnPage />);
    await advance(0);
    expect(view.container.textContent).toContain(en['mall.return.failed']);
  });

  it('asks at once when the socket says the order was paid', async () => {
    let paid = false;
    const fetch = vi.spyOn(mallApi, 'orderStatus').mockImplementation(async () => order({ order_id: 'o1', status: paid ? 'paid' : 'pending' }));
    view = render(<ReturnPage />);
    await advance(0);
    expect(fetch).toHaveBeenCalledTimes(1);
    paid = true;
    await act(async () => {
      applyMallFrame(appStore, { type: FrameType.Notification, content: { kind: 'order.paid', order_id: 'o1' } });
    });
    await advance(0);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(status()).toBe('paid');
  });

  it('says it is still waiting after the limit, and checks again on request', async () => {
    const fetch = vi.spyOn(mallApi, 'orderStatus').mockResolvedValue(order({ order_id: 'o1', status: 'pending' }));
    view = render(<ReturnPage />);
    await advance(POLL_LIMIT_MS + POLL_INTERVAL_MS);
    const still = view.container.querySelector('[data-testid="still-waiting"]');
    expect(still?.textContent).toContain(en['mall.return.stillWaiting']);
    const calls = fetch.mock.calls.length;
    await advance(5 * POLL_INTERVAL_MS);
    expect(fetch).toHaveBeenCalledTimes(calls);
    await act(async () => buttonByText(view!.container, en['mall.return.checkAgain']).click());
    await advance(0);
    expect(fetch).toHaveBeenCalledTimes(calls + 1);
    expect(view.container.querySelector('[data-testid="still-waiting"]')).toBeNull();
  });

  it('says so when no order is given', async () => {
    appStore.set(locationAtom, { pathname: '/en/mall/return', search: '', hash: '' });
    const fetch = vi.spyOn(mallApi, 'orderStatus');
    view = render(<ReturnPage />);
    await advance(0);
    expect(view.container.textContent).toContain(en['mall.return.noOrder']);
    expect(fetch).not.toHaveBeenCalled();
  });
});
