// Test helpers for the mall's components: render into the app store, find buttons by text,
// let promises settle, and a product, order and subscription to start from.
import { act } from 'react';
import type { ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import type { OrderView, Product, SubscriptionView } from '../api/mall';
import { appStore, Provider } from '../state/jotai';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export interface Rendered {
  container: HTMLDivElement;
  unmount: () => void;
}

export function render(ui: ReactNode): Rendered {
  const container = document.createElement('div');
  document.body.append(container);
  let root: Root | null = null;
  act(() => {
    root = createRoot(container);
    root.render(<Provider store={appStore}>{ui}</Provider>);
  });
  return {
    container,
    unmount: () => {
      act(() => root?.unmount());
      container.remove();
    },
  };
}

/** Lets pending promises (mocked calls and their state updates) run. */
export async function settle(rounds = 6): Promise<void> {
  await act(async () => {
    for (let i = 0; i < rounds; i++) await Promise.resolve();
  });
}

export function buttonByText(root: ParentNode, text: string): HTMLButtonElement {
  const b = [...root.querySelectorAll('button')].find((x) => x.textContent?.trim() === text);
  if (!b) throw new Error(`no button "${text}" in: ${[...root.querySelectorAll('button')].map((x) => x.textContent).join(' | ')}`);
  return b;
}

export async function click(el: HTMLElement): Promise<void> {
  await act(async () => {
    el.click();
  });
  await settle();
}

export function product(over: Partial<Product> = {}): Product {
  return {
    product_id: 'coins-500',
    kind: 'credits',
    name: '500 credits',
    price: 3000,
    currency: 'CNY',
    coins: 500,
    plan: null,
    period: null,
    product_level: 0,
    infinite_queue: false,
    original_price: null,
    features: [],
    sort: 0,
    ...over,
  };
}

export function plan(over: Partial<Product> = {}): Product {
  return product({
    product_id: 'full-month',
    kind: 'subscription',
    name: 'Full monthly',
    price: 9900,
    coins: 3000,
    plan: 'full',
    period: 'month',
    product_level: 2,
    infinite_queue: true,
    features: ['4 images per run'],
    ...over,
  });
}

export function order(over: Partial<OrderView> = {}): OrderView {
  return {
    order_id: 'ord-1',
    status: 'pending',
    kind: 'credits',
    product_id: 'coins-500',
    product_name: '500 credits',
    amount: 3000,
    currency: 'CNY',
    coins: 500,
    provider: 'stripe',
    checkout_url: 'https://pay.example/ord-1',
    refunded: 0,
    create_at: Date.UTC(2026, 0, 1),
    update_at: Date.UTC(2026, 0, 1),
    steps: [{ status: 'created', at: Date.UTC(2026, 0, 1), cause: 'order' }],
    ...over,
  };
}

export function subscription(over: Partial<SubscriptionView> = {}): SubscriptionView {
  return {
    sub_id: 'sub-1',
    product_id: 'full-month',
    product_name: 'Full monthly',
    plan: 'full',
    period: 'month',
    product_level: 2,
    status: 'active',
    auto_renew: true,
    current_period_start: Date.UTC(2026, 0, 1),
    current_period_end: Date.UTC(2026, 0, 31),
    paused_until: null,
    price: 9900,
    currency: 'CNY',
    provider: 'stripe',
    perks_active: true,
    retention_used: false,
    create_at: Date.UTC(2026, 0, 1),
    ...over,
  };
}
