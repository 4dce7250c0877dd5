//! The half-price popup (spec 1 §4): asked for at most once a UTC day per account while
//! logged in (`payment/discount/popup-info`); shown when the server says `show`; its buy
//! button orders with `use_discount: true`.
import { useEffect } from 'react';
import { accountAtom } from '../account/atoms';
import type { DiscountPopupInfo } from '../api/mall';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { useAtom, useAtomValue } from '../state/jotai';
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

export function DiscountPopup() {
  const t = useT();
  const price = usePrice();
  const account = useAtomValue(accountAtom);
  const [info, setInfo] = useAtom(discountPopupAtom);
  const { busy, error, buy } = useBuy();
  const accountId = account?.id ?? null;
  useEffect(() => {
    if (accountId === null) return;
    let live = true;
    void askDiscountOnce(accountId).then((i) => live && i && setInfo(i));
    return () => {
      live = false;
    };
  }, [accountId, setInfo]);
  if (!info || !info.product || info.discounted_price === null || accountId === null) return null;
  const product = info.product;
  const discounted = info.discounted_price;
  const off = savingPercent(discounted, product.price) ?? info.off_rate;
  const close = () => setInfo(null);
  return (
    <Dialog title={t('mall.discount.title', { n: off })} closeLabel={t('login.close')} onClose={close} className="mall-modal">
      <p data-testid="discount-text">
        {t('mall.discount.text', { name: product.name, discounted: price(discounted, product.currency), price: price(product.price, product.currency) })}
      </p>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="mall-actions">
        <button
          type="button"
          className="button button--primary"
          disabled={busy !== null}
          onClick={() => void buy(product.product_id, { kind: 'product', product, useDiscount: true }).then((ok) => ok && close())}
        >
          {t('mall.discount.buy')}
        </button>
      </div>
    </Dialog>
  );
}
