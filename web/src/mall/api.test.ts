// The mall's calls: paths, bodies (the locale on calls that open a checkout), the GET of the
// recent purchases, and tolerant reading of list answers.
import { describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../api/client';
import { MallApi } from './api';
import { plan, product } from './testing';

function client(answer: unknown = {}) {
  const post = vi.fn<(path: string, body?: unknown) => Promise<unknown>>(async () => answer);
  const get = vi.fn<(path: string) => Promise<unknown>>(async () => answer);
  return { post, get, api: { post, get } as unknown as Pick<ApiClient, 'post' | 'get'> };
}

describe('MallApi', () => {
  it('orders packs with create and plans with create-sub, with the locale', async () => {
    const c = client({ order_id: 'o1' });
    const mall = new MallApi(c.api, () => 'zhCN');
    await mall.createOrder(product());
    expect(c.post).toHaveBeenLastCalledWith('/api/v1/payment/order/create', { product_id: 'coins-500', locale: 'zhCN' });
    await mall.createOrder(plan(), { use_discount: true });
    expect(c.post).toHaveBeenLastCalledWith('/api/v1/payment/order/create-sub', { product_id: 'full-month', use_discount: true, locale: 'zhCN' });
    await mall.upgrade('full-year');
    expect(c.post).toHaveBeenLastCalledWith('/api/v1/payment/order/upgrade', { product_id: 'full-year', locale: 'zhCN' });
    await mall.reopenCheckout('o1');
    expect(c.post).toHaveBeenLastCalledWith('/api/v1/payment/order-checkout', { order_id: 'o1', locale: 'zhCN' });
    await mall.renew('s1');
    expect(c.post).toHaveBeenLastCalledWith('/api/v1/payment/order/renewal-sub', { sub_id: 's1', locale: 'zhCN' });
    await new MallApi(c.api).createOrder(product());
    expect(c.post).toHaveBeenLastCalledWith('/api/v1/payment/order/create', { product_id: 'coins-500' });
  });

  it('reads the recent purchases with GET and pages the buy log', async () => {
    const c = client({ items: [{ name: 'A***', product_name: 'x', kind: 'credits', at: 1 }] });
    const mall = new MallApi(c.api);
    expect(await mall.recentRecords()).toHaveLength(1);
    expect(c.get).toHaveBeenCalledWith('/api/v1/payment/order/calculate/recent-record');
    const log = client({ items: [], next_cursor: '' });
    expect(await new MallApi(log.api).buyLog(20, null)).toEqual({ items: [], next_cursor: null });
    expect(log.post).toHaveBeenCalledWith('/api/v1/payment/buy/log', { page_size: 20, cursor: null });
  });

  it('treats a missing list as empty', async () => {
    const mall = new MallApi(client({}).api);
    expect(await mall.products()).toEqual([]);
    expect(await mall.upgradePrices()).toEqual([]);
    expect(await mall.subList()).toEqual({ items: [], current: null });
  });

  it('sends the cancel reason and text, and months 0 to resume', async () => {
    const c = client({});
    const mall = new MallApi(c.api);
    await mall.feedback('s1', 'quality', 'blurry');
    expect(c.post).toHaveBeenLastCalledWith('/api/v1/payment/order/feedback', { sub_id: 's1', reason: 'quality', text: 'blurry' });
    await mall.cancel('s1', 'other', '');
    expect(c.post).toHaveBeenLastCalledWith('/api/v1/payment/order/cancel-sub-user', { sub_id: 's1', reason: 'other', text: '' });
    await mall.pause('s1', 0);
    expect(c.post).toHaveBeenLastCalledWith('/api/v1/payment/order/pause-sub', { sub_id: 's1', months: 0 });
  });
});
