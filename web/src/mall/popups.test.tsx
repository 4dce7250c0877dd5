// The popups over every page: the subscription banner (known free user, 24 h rule, dismissible),
// the half-price popup (asked once a UTC day, bought with use_discount), the VIP pop-up from the
// header badge, and the frame 13 payment pushes.
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { accountAtom, tokenAtom } from '../account/atoms';
import type { PaymentInfo } from '../api/types';
import { paymentInfoAtom } from '../generator/atoms';
import { en } from '../i18n/en';
import { locationAtom } from '../router/router';
import { FrameType } from '../socket/frames';
import { appStore } from '../state/jotai';
import { creditsAtom } from '../tasks/atoms';
import { bannerShownAtom, discountPopupAtom, paidPushAtom, vipPopupAtom } from './atoms';
import { askDiscountOnce, DiscountOffer, useAskDiscount } from './DiscountOffer';
import { HeaderEntry } from './HeaderEntry';
import { MallBanner } from './MallOverlays';
import { applyMallFrame, paymentStaleAtom } from './pushHook';
import { BANNER_INTERVAL_MS, readBannerAt, writeBannerAt } from './rules';
import { browser, mallApi } from './services';
import { SubscriptionBanner } from './SubscriptionBanner';
import { buttonByText, click, plan, render, settle } from './testing';
import type { Rendered } from './testing';
import { VipPopup } from './VipPopup';

const FREE: PaymentInfo = { activeState: false, liteActiveState: false, infiniteQueue: false, productLevel: 0 };
const FULL: PaymentInfo = { activeState: true, liteActiveState: false, infiniteQueue: true, productLevel: 2 };
const DAY = 24 * 3_600_000;
let view: Rendered | null = null;

function login(info: PaymentInfo | null) {
  appStore.set(tokenAtom, 'tok');
  appStore.set(accountAtom, { id: 'acc-1', name: 'Ada', email: 'ada@example.com', create_at: 0, status: 1 });
  appStore.set(paymentInfoAtom, info && { token: 'tok', info });
}

beforeEach(() => {
  window.localStorage.clear();
  appStore.set(locationAtom, { pathname: '/en/create', search: '', hash: '' });
});

afterEach(() => {
  view?.unmount();
  view = null;
  vi.useRealTimers();
  appStore.set(tokenAtom, null);
  appStore.set(accountAtom, null);
  appStore.set(paymentInfoAtom, null);
  appStore.set(bannerShownAtom, false);
  appStore.set(discountPopupAtom, null);
  appStore.set(vipPopupAtom, { open: false });
  appStore.set(creditsAtom, null);
});

/** The offer as the app mounts it: asked by the overlays, shown in the strip. */
function Offer() {
  useAskDiscount();
  return <DiscountOffer />;
}

function banner() {
  return view?.container.querySelector('[data-testid="subscription-banner"]') ?? null;
}

describe('subscription banner', () => {
  it('shows for a known free user when due, remembers when, and is dismissible', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 26, 9) });
    login(FREE);
    view = render(<SubscriptionBanner />);
    await settle();
    expect(banner()?.textContent).toContain(en['mall.banner.text']);
    expect(readBannerAt()).toBe(Date.UTC(2026, 10, 26, 9));
    await click(buttonByText(view.container, '×'));
    expect(banner()).toBeNull();
  });

  it('stays hidden within 24 h of the last banner, and shows again after', async () => {
    const now = Date.UTC(2026, 10, 26, 9);
    vi.useFakeTimers({ now });
    writeBannerAt(now - DAY + 60_000);
    login(FREE);
    view = render(<SubscriptionBanner />);
    await settle();
    expect(banner()).toBeNull();
    view.unmount();

    writeBannerAt(now - DAY);
    view = render(<SubscriptionBanner />);
    await settle();
    expect(banner()).not.toBeNull();
  });

  it('never shows for a member, nor before the payment info is known', async () => {
    login(FULL);
    view = render(<SubscriptionBanner />);
    await settle();
    expect(banner()).toBeNull();
    expect(readBannerAt()).toBeNull();
    await act(async () => appStore.set(paymentInfoAtom, null));
    expect(banner()).toBeNull();
    expect(readBannerAt()).toBeNull();
    expect(BANNER_INTERVAL_MS).toBe(DAY);
  });
});

describe('half-price popup', () => {
  it('is asked at most once a UTC day per account, even when the server says no', async () => {
    const ask = vi.spyOn(mallApi, 'discountPopup').mockResolvedValue({ show: false, off_rate: 50, product: null, discounted_price: 0 });
    const day1 = Date.UTC(2026, 10, 26, 1);
    expect(await askDiscountOnce('acc-1', day1)).toBeNull();
    expect(await askDiscountOnce('acc-1', day1 + 3_600_000)).toBeNull();
    expect(ask).toHaveBeenCalledTimes(1);
    await askDiscountOnce('acc-1', Date.UTC(2026, 10, 27, 0, 1));
    expect(ask).toHaveBeenCalledTimes(2);
  });

  it('shows when the server says show, and buys with use_discount', async () => {
    const product = plan();
    vi.spyOn(mallApi, 'discountPopup').mockResolvedValue({ show: true, off_rate: 50, product, discounted_price: 4950 });
    const create = vi.spyOn(mallApi, 'createOrder').mockResolvedValue({ order_id: 'd1', status: 'created', checkout_url: 'https://checkout.example/d1', amount: 4950, currency: 'CNY', provider: 'stripe' });
    const go = vi.spyOn(browser, 'go').mockImplementation(() => {});
    login(FREE);
    view = render(<Offer />);
    await settle();
    const strip = view.container.querySelector('[data-testid="discount-offer"]');
    expect(strip?.getAttribute('aria-label')).toBe('Today only: 50% off');
    expect(view.container.querySelector('[role="dialog"]')).toBeNull();
    expect(view.container.querySelector('[data-testid="discount-text"]')?.textContent).toMatch(/Full monthly for .*49\.50 instead of .*99\.00\./);
    await click(buttonByText(view.container, en['mall.discount.buy']));
    expect(create).toHaveBeenCalledWith(expect.objectContaining({ product_id: 'full-month' }), { use_discount: true });
    expect(go).toHaveBeenCalledWith('https://checkout.example/d1');
    expect(view.container.querySelector('[data-testid="discount-offer"]')).toBeNull();
  });

  it('is dismissible and not shown when the server says no', async () => {
    vi.spyOn(mallApi, 'discountPopup').mockResolvedValue({ show: true, off_rate: 50, product: plan(), discounted_price: 4950 });
    login(FREE);
    view = render(<Offer />);
    await settle();
    await click(buttonByText(view.container, '×'));
    expect(view.container.querySelector('[data-testid="discount-offer"]')).toBeNull();
    view.unmount();
    window.localStorage.clear();
    vi.spyOn(mallApi, 'discountPopup').mockResolvedValue({ show: false, off_rate: 0, product: null, discounted_price: null });
    view = render(<Offer />);
    await settle();
    expect(view.container.querySelector('[data-testid="discount-offer"]')).toBeNull();
  });
});

describe('the strip under the header', () => {
  it('shows the offer instead of the banner, and nothing on the mall pages', async () => {
    login(FREE);
    view = render(<MallBanner />);
    await settle();
    expect(banner()).not.toBeNull();
    await act(async () => appStore.set(discountPopupAtom, { show: true, off_rate: 50, product: plan(), discounted_price: 4950 }));
    expect(banner()).toBeNull();
    expect(view.container.querySelector('[data-testid="discount-offer"]')).not.toBeNull();
    await act(async () => appStore.set(locationAtom, { pathname: '/en/mall', search: '', hash: '' }));
    expect(view.container.textContent).toBe('');
  });
});

describe('header entry and VIP pop-up', () => {
  it('a free user sees credits and "Get VIP", which opens the perks', async () => {
    login(FREE);
    appStore.set(creditsAtom, { coins: 120, held: 20, available: 100 });
    view = render(
      <>
        <HeaderEntry />
        <VipPopup />
      </>,
    );
    expect(view.container.querySelector('[data-testid="header-credits"]')?.textContent).toBe('100 credits');
    const badge = view.container.querySelector('[data-testid="vip-badge"]') as HTMLButtonElement;
    expect(badge.getAttribute('data-vip')).toBe('false');
    expect(badge.textContent).toBe(en['mall.badge.get']);
    await click(badge);
    const perks = [...view.container.querySelectorAll('[data-testid="vip-perks"] li')].map((li) => li.textContent);
    expect(perks).toEqual([en['mall.vip.perk.images'], en['mall.vip.perk.fast'], en['mall.vip.perk.loras'], en['mall.vip.perk.queue'], en['mall.vip.perk.video']]);
    await act(async () => buttonByText(view!.container, en['mall.vip.cta']).click());
    expect(window.location.pathname).toBe('/en/mall');
    expect(appStore.get(vipPopupAtom)).toEqual({ open: false });
  });

  it('a member sees VIP', () => {
    login(FULL);
    view = render(<HeaderEntry />);
    const badge = view.container.querySelector('[data-testid="vip-badge"]');
    expect(badge?.getAttribute('data-vip')).toBe('true');
    expect(badge?.textContent).toBe('VIP');
  });

  it('shows nothing to a visitor', () => {
    view = render(<HeaderEntry />);
    expect(view.container.textContent).toBe('');
  });
});

describe('payment pushes (frame 13)', () => {
  it('order.paid names the order; account.payment updates the payment info; both mark the facts stale', () => {
    login(FREE);
    const stale = appStore.get(paymentStaleAtom);
    applyMallFrame(appStore, { type: FrameType.Notification, content: { kind: 'order.paid', order_id: 'o7' } });
    expect(appStore.get(paidPushAtom).orderId).toBe('o7');
    applyMallFrame(appStore, { type: FrameType.Notification, content: { kind: 'account.payment', payment: FULL } });
    expect(appStore.get(paymentInfoAtom)).toEqual({ token: 'tok', info: FULL });
    expect(appStore.get(paymentStaleAtom)).toBe(stale + 2);
    applyMallFrame(appStore, { type: FrameType.Notification, content: { kind: 'like' } });
    applyMallFrame(appStore, { type: FrameType.Notification, content: { kind: 'account.payment', payment: { nonsense: 1 } } });
    expect(appStore.get(paymentInfoAtom)).toEqual({ token: 'tok', info: FULL });
  });
});
