//! Everything the mall puts over any page, mounted once by the app: the payment facts kept
//! fresh (login, pushes), the subscription banner, and the VIP, half-price, recharge and
//! bank-transfer dialogs.
import { useEffect } from 'react';
import { tokenAtom } from '../account/atoms';
import { api } from '../app/services';
import { appStore, useAtomValue } from '../state/jotai';
import { DiscountPopup } from './DiscountPopup';
import { ManualPayDialog } from './ManualPayDialog';
import { paymentStaleAtom } from './pushHook';
import { RechargeDialog } from './RechargeDialog';
import { refreshPaymentFacts } from './refresh';
import { SubscriptionBanner } from './SubscriptionBanner';
import { VipPopup } from './VipPopup';
import './mall.css';

/** Reads payment info and credits at login and whenever a push says they changed. */
function usePaymentFacts() {
  const token = useAtomValue(tokenAtom);
  const stale = useAtomValue(paymentStaleAtom);
  useEffect(() => {
    if (token !== null) void refreshPaymentFacts(appStore, api);
  }, [token, stale]);
}

/** The banner, placed under the header. */
export function MallBanner() {
  return <SubscriptionBanner />;
}

/** The dialogs, placed at the end of the app. */
export function MallOverlays() {
  usePaymentFacts();
  return (
    <>
      <VipPopup />
      <DiscountPopup />
      <RechargeDialog />
      <ManualPayDialog />
    </>
  );
}
