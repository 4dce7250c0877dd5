// A generate answered CoinsNotEnough (40301): the recharge dialog opens with the credit packs,
// and buying one leaves for the checkout; MemberOnly opens the VIP pop-up instead.
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenAtom } from '../account/atoms';
import { ApiError } from '../api/client';
import type { ApiClient } from '../api/client';
import { defaultConfig } from '../generator/config';
import { generate } from '../generator/generate';
import { TEST_CATALOGUE as catalogue } from '../generator/testCatalogue';
import { en } from '../i18n/en';
import { appStore, createAppStore } from '../state/jotai';
import { rechargeOpenAtom, vipPopupAtom } from './atoms';
import { RechargeDialog } from './RechargeDialog';
import { browser, mallApi } from './services';
import { buttonByText, click, plan, product, render, settle } from './testing';
import type { Rendered } from './testing';

function failingWith(code: number, key: string): Pick<ApiClient, 'post'> {
  return { post: vi.fn(async () => Promise.reject(new ApiError({ code, key, msg: 'no' }, 403))) } as unknown as Pick<ApiClient, 'post'>;
}

async function press(api: Pick<ApiClient, 'post'>) {
  const store = createAppStore();
  store.set(tokenAtom, 'tok');
  const config = { ...defaultConfig('textToImage', { catalogue, studio: false, role: 'free', storedNIter: null }), prompt: 'a fox' };
  await generate({ store, api, catalogue, studio: false, tab: 'textToImage', config, onCreated: () => {} });
  return store;
}

describe('the generate flow', () => {
  it('opens the recharge dialog on 40301 and only then', async () => {
    expect((await press(failingWith(40301, 'CoinsNotEnough'))).get(rechargeOpenAtom)).toBe(true);
    expect((await press(failingWith(40011, 'LoRALimit5TipWeb'))).get(rechargeOpenAtom)).toBe(false);
    expect((await press(failingWith(40000, 'InvalidParams'))).get(rechargeOpenAtom)).toBe(false);
  });

  it('opens the VIP pop-up on a member-only answer (the queue is full)', async () => {
    const store = await press(failingWith(42960, 'TaskQueueFull'));
    expect(store.get(vipPopupAtom)).toEqual({ open: true, reason: 'member-only' });
    expect(store.get(rechargeOpenAtom)).toBe(false);
  });
});

describe('RechargeDialog', () => {
  let view: Rendered | null = null;
  beforeEach(() => {
    window.history.replaceState(null, '', '/en/create');
    appStore.set(tokenAtom, 'tok');
  });
  afterEach(() => {
    view?.unmount();
    view = null;
    appStore.set(rechargeOpenAtom, false);
    appStore.set(tokenAtom, null);
  });

  it('lists the credit packs (not the plans) with prices and buys one', async () => {
    vi.spyOn(mallApi, 'products').mockResolvedValue([
      product({ product_id: 'big', coins: 2000, price: 9800, sort: 2 }),
      plan(),
      product({ product_id: 'small', coins: 500, price: 3000, original_price: 6000, sort: 1 }),
    ]);
    const create = vi.spyOn(mallApi, 'createOrder').mockResolvedValue({
      order_id: 'o9',
      status: 'created',
      checkout_url: 'https://checkout.example/pay/o9',
      amount: 3000,
      currency: 'CNY',
      provider: 'stripe',
    });
    const go = vi.spyOn(browser, 'go').mockImplementation(() => {});
    view = render(<RechargeDialog />);
    expect(view.container.textContent).toBe('');
    await act(async () => appStore.set(rechargeOpenAtom, true));
    await settle();
    const dialog = view.container.querySelector('[role="dialog"]');
    expect(dialog?.textContent).toContain(en['mall.recharge.title']);
    const packs = [...view.container.querySelectorAll('[data-testid="credit-pack"]')];
    expect(packs.map((p) => p.getAttribute('data-product-id'))).toEqual(['small', 'big']);
    expect(packs[0]?.textContent).toContain('30.00');
    expect(packs[0]?.textContent).toContain('Save 50%');
    await click(buttonByText(packs[0] as HTMLElement, en['mall.buy']));
    expect(create).toHaveBeenCalledWith(expect.objectContaining({ product_id: 'small', kind: 'credits' }), {});
    expect(go).toHaveBeenCalledWith('https://checkout.example/pay/o9');
  });
});
