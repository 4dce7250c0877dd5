// The mall page: plans by period with the current one marked and upgrade prices, packs with
// prices from minor units, the recent purchases, and the two ways an order goes on: the
// hosted checkout, or the manual provider's transfer instructions and then the return page.
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loginDialogAtom, tokenAtom } from '../account/atoms';
import { en } from '../i18n/en';
import { locationAtom } from '../router/router';
import { appStore } from '../state/jotai';
import { manualOrderAtom } from './atoms';
import { MallPage } from './MallPage';
import { ManualPayDialog } from './ManualPayDialog';
import { browser, mallApi } from './services';
import { buttonByText, click, plan, product, render, settle, subscription } from './testing';
import type { Rendered } from './testing';

let view: Rendered | null = null;
const lite = plan({ product_id: 'lite-month', name: 'Lite monthly', plan: 'lite', product_level: 1, price: 4900, sort: 1 });
const full = plan({ sort: 2 });
const fullYear = plan({ product_id: 'full-year', name: 'Full yearly', period: 'year', price: 99000, original_price: 118800, sort: 2 });
const pack = product({ price: 3000 });

function cards(): Element[] {
  return [...(view?.container.querySelectorAll('[data-testid="plan-card"]') ?? [])];
}

beforeEach(() => {
  window.history.replaceState(null, '', '/en/mall');
  appStore.set(locationAtom, { pathname: '/en/mall', search: '', hash: '' });
  appStore.set(tokenAtom, 'tok');
  vi.spyOn(mallApi, 'products').mockResolvedValue([pack, lite, full, fullYear]);
  vi.spyOn(mallApi, 'recentRecords').mockResolvedValue([{ name: 'A***a', product_name: 'Full monthly', kind: 'subscription', at: 1 }]);
  vi.spyOn(mallApi, 'upgradePrices').mockResolvedValue([{ product_id: 'full-month', price: 2500, currency: 'CNY', days_left: 15 }]);
  vi.spyOn(mallApi, 'discounts').mockResolvedValue({ eligible: false, off_rate: 0, items: [] });
});

afterEach(() => {
  view?.unmount();
  view = null;
  appStore.set(tokenAtom, null);
  appStore.set(manualOrderAtom, null);
  appStore.set(loginDialogAtom, { open: false });
});

describe('MallPage', () => {
  it('compares the plans of one period and toggles to yearly', async () => {
    vi.spyOn(mallApi, 'subList').mockResolvedValue({ items: [lite, full, fullYear], current: null });
    view = render(<MallPage />);
    await settle();
    expect(cards().map((c) => c.getAttribute('data-product-id'))).toEqual(['lite-month', 'full-month']);
    expect(cards()[1]?.textContent).toContain('99.00 / month');
    expect(cards()[1]?.textContent).toContain('Unlimited queue');
    expect(cards()[1]?.textContent).toContain('4 images per run');
    expect(cards()[1]?.textContent).toContain(en['mall.infiniteQueue']);
    await click(buttonByText(view.container, en['mall.yearly']));
    expect(cards().map((c) => c.getAttribute('data-product-id'))).toEqual(['full-year']);
    expect(cards()[0]?.textContent).toContain('990.00 / year');
    expect(cards()[0]?.textContent).toContain('Save 17%');
    expect(view.container.querySelector('[data-testid="recent-purchases"]')?.textContent).toContain('A***a bought Full monthly');
    const packs = view.container.querySelectorAll('[data-testid="credit-pack"]');
    expect(packs).toHaveLength(1);
    expect(packs[0]?.textContent).toContain('30.00');
  });

  it('marks the current plan and offers the upgrade at the prorated price', async () => {
    vi.spyOn(mallApi, 'subList').mockResolvedValue({ items: [lite, full, fullYear], current: subscription({ product_id: 'lite-month', plan: 'lite' }) });
    const upgrade = vi.spyOn(mallApi, 'upgrade').mockResolvedValue({ order_id: 'u1', status: 'created', checkout_url: 'https://checkout.example/u1', amount: 2500, currency: 'CNY', provider: 'stripe' });
    const go = vi.spyOn(browser, 'go').mockImplementation(() => {});
    view = render(<MallPage />);
    await settle();
    const [liteCard, fullCard] = cards();
    expect(liteCard?.getAttribute('data-current')).toBe('true');
    expect(liteCard?.textContent).toContain(en['mall.current']);
    expect(fullCard?.getAttribute('data-current')).toBe('false');
    expect(fullCard?.textContent).toContain('Prorated for the 15 days left');
    const button = [...(fullCard?.querySelectorAll('button') ?? [])].find((b) => b.textContent?.startsWith('Upgrade for'));
    expect(button?.textContent).toContain('25.00');
    await click(button as HTMLButtonElement);
    expect(upgrade).toHaveBeenCalledWith('full-month');
    expect(go).toHaveBeenCalledWith('https://checkout.example/u1');
  });

  it('subscribes through the hosted checkout', async () => {
    vi.spyOn(mallApi, 'subList').mockResolvedValue({ items: [lite, full], current: null });
    const create = vi.spyOn(mallApi, 'createOrder').mockResolvedValue({ order_id: 'o1', status: 'created', checkout_url: 'https://checkout.example/pay/o1', amount: 9900, currency: 'CNY', provider: 'stripe' });
    const go = vi.spyOn(browser, 'go').mockImplementation(() => {});
    view = render(<MallPage />);
    await settle();
    await click(buttonByText(cards()[1] as HTMLElement, en['mall.subscribe']));
    expect(create).toHaveBeenCalledWith(expect.objectContaining({ product_id: 'full-month', kind: 'subscription' }), {});
    expect(go).toHaveBeenCalledExactlyOnceWith('https://checkout.example/pay/o1');
  });

  it('shows the first-plan offer on the plans it applies to and orders with use_discount', async () => {
    vi.spyOn(mallApi, 'subList').mockResolvedValue({ items: [lite, full], current: null });
    vi.spyOn(mallApi, 'discounts').mockResolvedValue({ eligible: true, off_rate: 50, items: [{ product_id: 'full-month', price: 9900, discounted_price: 4950 }] });
    const create = vi.spyOn(mallApi, 'createOrder').mockResolvedValue({ order_id: 'o2', status: 'created', checkout_url: 'https://checkout.example/pay/o2', amount: 4950, currency: 'CNY', provider: 'stripe' });
    vi.spyOn(browser, 'go').mockImplementation(() => {});
    view = render(<MallPage />);
    await settle();
    const [liteCard, fullCard] = cards();
    expect(fullCard?.textContent).toContain('49.50 / month');
    expect(fullCard?.querySelector('s')?.textContent).toContain('99.00');
    expect(fullCard?.textContent).toContain('Your first plan: 50% off');
    expect(liteCard?.textContent).toContain('49.00 / month');
    expect(liteCard?.querySelector('s')).toBeNull();
    await click(buttonByText(fullCard as HTMLElement, en['mall.subscribe']));
    expect(create).toHaveBeenCalledWith(expect.objectContaining({ product_id: 'full-month' }), { use_discount: true });
    await click(buttonByText(liteCard as HTMLElement, en['mall.subscribe']));
    expect(create).toHaveBeenLastCalledWith(expect.objectContaining({ product_id: 'lite-month' }), {});
  });

  it('refuses to follow a checkout address that is not http(s)', async () => {
    vi.spyOn(mallApi, 'subList').mockResolvedValue({ items: [full], current: null });
    vi.spyOn(mallApi, 'createOrder').mockResolvedValue({ order_id: 'o1', status: 'created', checkout_url: 'javascript:alert(1)', amount: 9900, currency: 'CNY', provider: 'stripe' });
    const go = vi.spyOn(browser, 'go').mockImplementation(() => {});
    view = render(<MallPage />);
    await settle();
    await click(buttonByText(view.container, en['mall.subscribe']));
    expect(go).not.toHaveBeenCalled();
  });

  it('shows the transfer instructions for the manual provider, then goes to the return page', async () => {
    vi.spyOn(mallApi, 'subList').mockResolvedValue({ items: [], current: null });
    vi.spyOn(mallApi, 'createOrder').mockResolvedValue({ order_id: 'm-42', status: 'created', checkout_url: null, amount: 3000, currency: 'CNY', provider: 'manual' });
    vi.spyOn(mallApi, 'grayInfo').mockResolvedValue({ providers: ['manual'], default_provider: 'manual', currency: 'CNY', manual_instructions: 'Bank: Example Bank\nIBAN: XX00 0000' });
    const go = vi.spyOn(browser, 'go').mockImplementation(() => {});
    view = render(
      <>
        <MallPage />
        <ManualPayDialog />
      </>,
    );
    await settle();
    await click(buttonByText(view.container.querySelector('[data-testid="credit-pack"]') as HTMLElement, en['mall.buy']));
    await settle();
    expect(go).not.toHaveBeenCalled();
    expect(view.container.querySelector('[data-testid="manual-instructions"]')?.textContent).toBe('Bank: Example Bank\nIBAN: XX00 0000');
    expect(view.container.querySelector('[data-testid="manual-reference"]')?.textContent).toContain('m-42');
    expect(view.container.textContent).toContain('Amount: ');
    await act(async () => buttonByText(view!.container, en['mall.manual.done']).click());
    expect(window.location.pathname + window.location.search).toBe('/en/mall/return?order_id=m-42');
    expect(appStore.get(manualOrderAtom)).toBeNull();
  });

  it('asks a visitor to log in instead of ordering', async () => {
    appStore.set(tokenAtom, null);
    const sub = vi.spyOn(mallApi, 'subList');
    const discounts = vi.spyOn(mallApi, 'discounts');
    const create = vi.spyOn(mallApi, 'createOrder');
    view = render(<MallPage />);
    await settle();
    expect(sub).not.toHaveBeenCalled();
    expect(discounts).not.toHaveBeenCalled();
    await click(buttonByText(view.container.querySelector('[data-testid="credit-pack"]') as HTMLElement, en['mall.buy']));
    expect(create).not.toHaveBeenCalled();
    expect(appStore.get(loginDialogAtom)).toEqual({ open: true, step: 'login' });
  });
});
