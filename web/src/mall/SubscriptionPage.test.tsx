// Subscription management: the plan's state, pause and resume, renewal off and on, the portal,
// and the cancel dialog through feedback to the retention offer (accepted or declined).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenAtom } from '../account/atoms';
import { api } from '../app/services';
import { en } from '../i18n/en';
import { locationAtom } from '../router/router';
import { appStore } from '../state/jotai';
import { browser, mallApi } from './services';
import { SubscriptionPage } from './SubscriptionPage';
import { buttonByText, click, render, settle, subscription } from './testing';
import type { Rendered } from './testing';
import { act } from 'react';

let view: Rendered | null = null;

beforeEach(() => {
  appStore.set(tokenAtom, 'tok');
  appStore.set(locationAtom, { pathname: '/en/mall/subscription', search: '', hash: '' });
  vi.spyOn(mallApi, 'subDetail').mockResolvedValue({ subscription: subscription(), portal: true });
  vi.spyOn(mallApi, 'pauseInfo').mockResolvedValue({ can_pause: true, months: [1, 2, 3], paused_until: null });
  vi.spyOn(api, 'paymentInfo').mockResolvedValue({ activeState: true, liteActiveState: false, infiniteQueue: true, productLevel: 2 });
  vi.spyOn(api, 'post').mockResolvedValue({ balance: 0, held: 0, available: 0 });
});

afterEach(() => {
  view?.unmount();
  view = null;
  appStore.set(tokenAtom, null);
});

function section() {
  return view?.container.querySelector('[data-testid="subscription"]') ?? null;
}

async function open() {
  view = render(<SubscriptionPage />);
  await settle();
  return view;
}

describe('SubscriptionPage', () => {
  it('shows the plan and pauses, resumes and switches renewal', async () => {
    const pause = vi.spyOn(mallApi, 'pause').mockImplementation(async (_id, months) =>
      subscription(months === 0 ? {} : { status: 'paused', paused_until: Date.UTC(2026, 2, 1) }),
    );
    const stop = vi.spyOn(mallApi, 'stopRenewal').mockResolvedValue(subscription({ auto_renew: false }));
    const renew = vi.spyOn(mallApi, 'renew').mockResolvedValue({ subscription: subscription({ auto_renew: true }), order: null });
    const v = await open();
    expect(section()?.textContent).toContain('Full monthly');
    expect(section()?.textContent).toContain(en['mall.sub.status.active']);
    expect(section()?.textContent).toContain(en['mall.sub.renewOn']);
    const select = v.container.querySelector('select') as HTMLSelectElement;
    await act(async () => {
      select.value = '2';
      select.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await click(buttonByText(v.container, en['mall.sub.pause']));
    expect(pause).toHaveBeenLastCalledWith('sub-1', 2);
    expect(section()?.getAttribute('data-status')).toBe('paused');
    await click(buttonByText(v.container, en['mall.sub.resume']));
    expect(pause).toHaveBeenLastCalledWith('sub-1', 0);
    expect(section()?.getAttribute('data-status')).toBe('active');

    await click(buttonByText(v.container, en['mall.sub.renewalOff']));
    expect(stop).toHaveBeenCalledWith('sub-1');
    expect(section()?.getAttribute('data-auto-renew')).toBe('false');
    expect(section()?.textContent).toContain(en['mall.sub.renewOff']);
    await click(buttonByText(v.container, en['mall.sub.renewalOn']));
    expect(renew).toHaveBeenCalledWith('sub-1');
    expect(section()?.getAttribute('data-auto-renew')).toBe('true');
  });

  it('opens the provider portal', async () => {
    vi.spyOn(mallApi, 'portal').mockResolvedValue({ url: 'https://billing.example/session/1' });
    const go = vi.spyOn(browser, 'go').mockImplementation(() => {});
    const v = await open();
    await click(buttonByText(v.container, en['mall.sub.portal']));
    expect(go).toHaveBeenCalledWith('https://billing.example/session/1');
  });

  it('hides the portal when the server does not offer it, and says when there is no plan', async () => {
    vi.spyOn(mallApi, 'subDetail').mockResolvedValueOnce({ subscription: subscription(), portal: false });
    const v = await open();
    expect(() => buttonByText(v.container, en['mall.sub.portal'])).toThrow();
    v.unmount();
    vi.spyOn(mallApi, 'subDetail').mockResolvedValueOnce({ subscription: null, portal: false });
    view = render(<SubscriptionPage />);
    await settle();
    expect(view.container.textContent).toContain(en['mall.sub.none']);
  });

  it('cancel: feedback, then the retention offer; accepting keeps the plan', async () => {
    const feedback = vi.spyOn(mallApi, 'feedback').mockResolvedValue();
    vi.spyOn(mallApi, 'retentionInfo').mockResolvedValue({ show: true, percent_off: 30, price: 9900, discounted_price: 6930, sub_id: 'sub-1' });
    const accept = vi.spyOn(mallApi, 'acceptRetention').mockResolvedValue(subscription({ retention_used: true }));
    const cancel = vi.spyOn(mallApi, 'cancel');
    const v = await open();
    await click(buttonByText(v.container, en['mall.sub.cancel']));
    const reason = v.container.querySelector('input[value="missing_features"]') as HTMLInputElement;
    await act(async () => reason.click());
    const text = v.container.querySelector('textarea') as HTMLTextAreaElement;
    await act(async () => {
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')?.set?.call(text, 'no video upscaler');
      text.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await click(buttonByText(v.container, en['mall.cancel.continue']));
    expect(feedback).toHaveBeenCalledWith('sub-1', 'missing_features', 'no video upscaler');
    expect(v.container.querySelector('[role="dialog"]')?.textContent).toContain('Before you go: 30% off');
    expect(v.container.querySelector('[data-testid="retention-offer"]')?.textContent).toMatch(/69\.30 instead of .*99\.00/);
    await click(buttonByText(v.container, en['mall.cancel.accept']));
    expect(accept).toHaveBeenCalledWith('sub-1');
    expect(cancel).not.toHaveBeenCalled();
    expect(v.container.querySelector('[role="dialog"]')).toBeNull();
    expect(section()?.getAttribute('data-status')).toBe('active');
  });

  it('cancel: declining the offer cancels; without an offer it cancels at once', async () => {
    vi.spyOn(mallApi, 'feedback').mockResolvedValue();
    const info = vi.spyOn(mallApi, 'retentionInfo').mockResolvedValue({ show: true, percent_off: 30, price: 9900, discounted_price: 6930, sub_id: 'sub-1' });
    const cancel = vi.spyOn(mallApi, 'cancel').mockResolvedValue(subscription({ status: 'canceled', auto_renew: false }));
    const v = await open();
    await click(buttonByText(v.container, en['mall.sub.cancel']));
    await click(buttonByText(v.container, en['mall.cancel.continue']));
    await click(buttonByText(v.container, en['mall.cancel.decline']));
    expect(cancel).toHaveBeenCalledWith('sub-1', 'too_expensive', '');
    expect(section()?.getAttribute('data-status')).toBe('canceled');
    expect(() => buttonByText(v.container, en['mall.sub.cancel'])).toThrow();

    v.unmount();
    info.mockResolvedValue({ show: false, percent_off: 0, price: 0, discounted_price: 0, sub_id: 'sub-1' });
    cancel.mockClear();
    view = render(<SubscriptionPage />);
    await settle();
    await click(buttonByText(view.container, en['mall.sub.cancel']));
    await click(buttonByText(view.container, en['mall.cancel.continue']));
    expect(cancel).toHaveBeenCalledTimes(1);
    expect(view.container.querySelector('[data-testid="retention-offer"]')).toBeNull();
  });
});
