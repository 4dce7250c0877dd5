// The buy log: first page, "Load more" with the cursor, status badges, steps, and "Continue to
// payment" for an unpaid order.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenAtom } from '../account/atoms';
import { en } from '../i18n/en';
import { appStore } from '../state/jotai';
import { appendPage, ORDERS_PAGE_SIZE, OrdersPage } from './OrdersPage';
import { browser, mallApi } from './services';
import { buttonByText, click, order, render, settle } from './testing';
import type { Rendered } from './testing';

let view: Rendered | null = null;

beforeEach(() => appStore.set(tokenAtom, 'tok'));
afterEach(() => {
  view?.unmount();
  view = null;
  appStore.set(tokenAtom, null);
});

function rows() {
  return [...(view?.container.querySelectorAll('[data-testid="order-row"]') ?? [])];
}

describe('OrdersPage', () => {
  it('pages with the cursor and shows badges and steps', async () => {
    const log = vi.spyOn(mallApi, 'buyLog').mockImplementation(async (_size, cursor) =>
      cursor === null
        ? { items: [order({ order_id: 'a', status: 'paid', steps: [{ status: 'created', at: 1, cause: 'order' }, { status: 'paid', at: 2, cause: 'checkout.session.completed' }] })], next_cursor: 'c1' }
        : { items: [order({ order_id: 'a', status: 'paid' }), order({ order_id: 'b', status: 'refunded', refunded: 3000 })], next_cursor: null },
    );
    view = render(<OrdersPage />);
    await settle();
    expect(log).toHaveBeenCalledWith(ORDERS_PAGE_SIZE, null);
    expect(rows().map((r) => r.getAttribute('data-order-id'))).toEqual(['a']);
    expect(rows()[0]?.querySelector('summary [data-status]')?.textContent).toBe(en['mall.status.paid']);
    expect(rows()[0]?.querySelectorAll('.mall-steps li')).toHaveLength(2);
    expect(rows()[0]?.textContent).toContain('checkout.session.completed');
    await click(buttonByText(view.container, en['mall.orders.more']));
    expect(log).toHaveBeenLastCalledWith(ORDERS_PAGE_SIZE, 'c1');
    expect(rows().map((r) => r.getAttribute('data-order-id'))).toEqual(['a', 'b']);
    expect(rows()[1]?.textContent).toContain('Refunded');
    expect(() => buttonByText(view!.container, en['mall.orders.more'])).toThrow();
  });

  it('reopens the checkout of an unpaid order', async () => {
    vi.spyOn(mallApi, 'buyLog').mockResolvedValue({ items: [order({ order_id: 'p', status: 'pending' }), order({ order_id: 'q', status: 'paid' })], next_cursor: null });
    const reopen = vi.spyOn(mallApi, 'reopenCheckout').mockResolvedValue({ order_id: 'p', status: 'pending', checkout_url: 'https://checkout.example/p2' });
    const go = vi.spyOn(browser, 'go').mockImplementation(() => {});
    view = render(<OrdersPage />);
    await settle();
    expect(() => buttonByText(rows()[1] as HTMLElement, en['mall.orders.continue'])).toThrow();
    await click(buttonByText(rows()[0] as HTMLElement, en['mall.orders.continue']));
    expect(reopen).toHaveBeenCalledWith('p');
    expect(go).toHaveBeenCalledWith('https://checkout.example/p2');
  });

  it('says when there are no orders', async () => {
    vi.spyOn(mallApi, 'buyLog').mockResolvedValue({ items: [], next_cursor: null });
    view = render(<OrdersPage />);
    await settle();
    expect(view.container.textContent).toContain(en['mall.orders.empty']);
  });

  it('appends without repeating an order', () => {
    const from = { items: [order({ order_id: 'a' })], cursor: 'x', done: false, loading: true, error: null };
    const next = appendPage(from, { items: [order({ order_id: 'a' }), order({ order_id: 'b' })], next_cursor: null });
    expect(next.items.map((o) => o.order_id)).toEqual(['a', 'b']);
    expect(next.done).toBe(true);
    expect(next.loading).toBe(false);
  });
});
