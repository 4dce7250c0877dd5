// Refreshing what a payment changes: the payment info (role, VIP) and the credits, in the
// atoms their owners read (generator paymentInfoAtom and balanceAtom, tasks creditsAtom).
import { tokenAtom } from '../account/atoms';
import type { ApiClient } from '../api/client';
import type { AssetsAnswer } from '../api/mall';
import { balanceAtom, paymentInfoAtom } from '../generator/atoms';
import type { AppStore } from '../state/jotai';
import { creditsAtom } from '../tasks/atoms';

/** Reads payment info and the credits for the current token and stores both (failures keep the old values). */
export async function refreshPaymentFacts(store: AppStore, api: Pick<ApiClient, 'post' | 'paymentInfo'>): Promise<void> {
  const token = store.get(tokenAtom);
  if (token === null) return;
  const [info, assets] = await Promise.allSettled([
    api.paymentInfo({ token }),
    api.post<AssetsAnswer>('/api/v1/payment/assets/get'),
  ]);
  if (store.get(tokenAtom) !== token) return;
  if (info.status === 'fulfilled') store.set(paymentInfoAtom, { token, info: info.value });
  if (assets.status === 'fulfilled') {
    const a = assets.value;
    const coins = a.balance ?? a.coins ?? a.available + a.held;
    store.set(creditsAtom, { coins, held: a.held, available: a.available });
    store.set(balanceAtom, { token, available: a.available });
  }
}
