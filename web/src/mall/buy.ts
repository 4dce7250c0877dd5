// Buying: create the order (pack, plan, upgrade or discounted), then either leave for the
// provider's hosted checkout or, for the manual provider (no checkout URL), show the
// bank-transfer instructions with the order id as the reference.
import { loginDialogAtom, tokenAtom } from '../account/atoms';
import type { CreatedOrder, Product } from '../api/mall';
import type { AppStore } from '../state/jotai';
import { manualOrderAtom } from './atoms';
import { browser, isSafeUrl, mallApi } from './services';

/** Where a created order goes next; answers false when it could not (a URL that is not http(s)). */
export function followOrder(store: AppStore, order: Pick<CreatedOrder, 'order_id' | 'checkout_url' | 'amount' | 'currency' | 'provider' | 'status'>): boolean {
  if (order.checkout_url) {
    if (!isSafeUrl(order.checkout_url)) return false;
    browser.go(order.checkout_url);
    return true;
  }
  store.set(manualOrderAtom, { ...order, checkout_url: null });
  return true;
}

export type Purchase =
  | { kind: 'product'; product: Pick<Product, 'product_id' | 'kind'>; useDiscount?: boolean }
  | { kind: 'upgrade'; productId: string };

/** Creates the order and follows it; a visitor gets the login popup instead. Errors are thrown (ApiError). */
export async function purchase(store: AppStore, what: Purchase): Promise<CreatedOrder | null> {
  if (store.get(tokenAtom) === null) {
    store.set(loginDialogAtom, { open: true, step: 'login' });
    return null;
  }
  const order =
    what.kind === 'upgrade'
      ? await mallApi.upgrade(what.productId)
      : await mallApi.createOrder(what.product, what.useDiscount ? { use_discount: true } : {});
  followOrder(store, order);
  return order;
}
