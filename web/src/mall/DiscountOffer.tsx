// The half-price offer (spec 1 §4 "a half-price popup is requested once a day when logged
// in"): `payment/discount/popup-info` is asked at most once a UTC day per account; when the
// server says `show`, the offer pops up as a strip under the header (never a modal, so it
// blocks nothing); its buy button orders with `use_discount: true`.
import { useEffect } from 'react';
import { accountAtom } from '../account/atoms';
import type { DiscountPopupInfo } from '../api/mall';
import { useT } from '../i18n/useT';
import { useAtom, useAtomValue, useSetAtom } from '../state/jotai';
import { discountPopupAtom } from './atoms';
import { usePrice } from './hooks';
import { savingPercent } from './money';
import { discountDue, readDiscountAsked, writeDiscountAsked } from './rules';
import { mallApi } from './services';
import { useBuy } from './useBuy';

/** Asks the server once today for this account (remembered before the call, so a failure is not retried). */
export async function askDiscountOnce(accountId: string, now: number = Date.now()): Promise<DiscountPopupInfo | null> {
  if (!discountDue(now, accountId, readDiscountAsked())) return null;
  writeDiscountAsked(now, accountId);
  try {
    const info = await mallApi.discountPopup();
    return info.show && info.product && info.discounted_price !== null ? info : null;
  } catch {
    return null;
  }
}

/** Asks for the offer once the account is known (mounted once, by MallOverlays). */
export function useAskDiscount(): void {
  const account = useAtomValue(accountAtom);
  const setInfo = useSetAtom(discountPopupAtom);
  const accountId = account?.id ?? null;
  useEffect(() => {
    if (accountId === null) return;
    let live = true;
    void askDiscountOnce(accountId).then((i) => live && i && setInfo(i));
    return () => {
      live = false;
    };
  }, [accountId, setInfo]);
}

export function DiscountOffer() {
  const t = useT();
  const price = usePrice();
  const account = useAtomValue(accountAtom);
  const [info, setInfo] = useAtom(discountPopupAtom);
  const { busy, error, buy } = useBuy();
  if (!info || !info.product || info.discounted_price === null || account === null) return null;
  const product = info.product;
  const discounted = info.discounted_price;
  const off = savingPercent(discounted, product.price) ?? info.off_rate;
  const close = () => setInfo(null);
  const title = t('mall.discount.title', { n: off });
  return (
    <aside className="mall-banner mall-banner--offer" data-testid="discount-offer" aria-label={title}>
      <strong>{title}</strong>
      <span data-testid="discount-text">
        {t('mall.discount.text', { name: product.name, discounted: price(discounted, product.currency), price: price(product.price, product.currency) })}
      </span>
      {error && (
        <span className="form-error" role="alert">
          {error}
        </span>
      )}
      <button
        type="button"
        className="button button--primary"
        disabled={busy !== null}
        onClick={() => void buy(product.product_id, { kind: 'product', product, useDiscount: true }).then((ok) => ok && close())}
      >
        {t('mall.discount.buy')}
      </button>
      <button type="button" className="icon-button" aria-label={t('mall.banner.dismiss')} onClick={close}>
        ×
      </button>
    </aside>
  );
}
