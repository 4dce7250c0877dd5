// Everything the mall puts on any page, mounted once by the app: the payment facts kept
// fresh (login, pushes), the half-price offer asked once a day, the strip under the header
// (the offer or the subscription banner), and the VIP, recharge and bank-transfer dialogs.
import { useEffect } from 'react';
import { tokenAtom } from '../account/atoms';
import { api } from '../app/services';
import { routeAtom } from '../router/router';
import { appStore, useAtomValue } from '../state/jotai';
import { discountPopupAtom } from './atoms';
import { DiscountOffer, useAskDiscount } from './DiscountOffer';
import { ManualPayDialog } from './ManualPayDialog';
import { paymentStaleAtom } from './pushHook';
import { RechargeDialog } from './RechargeDialog';
import { parseMallPath } from './route';
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

/** The strip under the header: today's offer when there is one, else the subscription banner. */
export function MallBanner() {
  const offer = useAtomValue(discountPopupAtom);
  const onMall = parseMallPath(useAtomValue(routeAtom).rest) !== null;
  if (onMall) return null;
  return offer ? <DiscountOffer /> : <SubscriptionBanner />;
}

/** The dialogs, placed at the end of the app. */
export function MallOverlays() {
  usePaymentFacts();
  useAskDiscount();
  return (
    <>
      <VipPopup />
      <RechargeDialog />
      <ManualPayDialog />
    </>
  );
}
