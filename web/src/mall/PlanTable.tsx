// The plan comparison: a monthly/yearly toggle, one card per plan (price, level, monthly
// credits, features, the current plan marked) and its button: subscribe, upgrade at the
// prorated price, or manage the current plan.
import { useState } from 'react';
import type { DiscountInfo, Period, Product, SubscriptionView, UpgradePrice } from '../api/mall';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { usePrice } from './hooks';
import { savingPercent } from './money';
import { planAction, plansOf, periodsOf } from './plans';
import { mallPath } from './route';
import { useBuy } from './useBuy';

interface Props {
  products: Product[];
  current: SubscriptionView | null;
  upgrades: UpgradePrice[];
  /** The account's first-plan offer: plans it applies to, with their discounted price. */
  discounts?: DiscountInfo['items'];
}

export function PlanTable({ products, current, upgrades, discounts = [] }: Props) {
  const t = useT();
  const price = usePrice();
  const locale = useAtomValue(localeAtom);
  const periods = periodsOf(products);
  const [chosen, setPeriod] = useState<Period>(current?.period ?? 'month');
  const period = periods.includes(chosen) ? chosen : (periods[0] ?? 'month');
  const { busy, error, buy } = useBuy();
  const plans = plansOf(products, period);
  if (periods.length === 0) return <p className="muted">{t('mall.noPlans')}</p>;
  return (
    <>
      {periods.length > 1 && (
        <div className="mall-toggle" role="group" aria-label={t('mall.period')}>
          {periods.map((p) => (
            <button key={p} type="button" className="button" aria-pressed={p === period} onClick={() => setPeriod(p)}>
              {p === 'month' ? t('mall.monthly') : t('mall.yearly')}
            </button>
          ))}
        </div>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <ul className="mall-plans">
        {plans.map((p) => {
          const action = planAction(p, current, upgrades);
          const offer = action.kind === 'subscribe' ? discounts.find((d) => d.product_id === p.product_id && d.discounted_price < p.price) : undefined;
          const was = offer ? p.price : p.original_price;
          const now = offer ? offer.discounted_price : p.price;
          const save = savingPercent(now, was);
          const shown = price(now, p.currency);
          return (
            <li
              key={p.product_id}
              className={action.kind === 'current' ? 'mall-card mall-plan mall-plan--current' : 'mall-card mall-plan'}
              data-testid="plan-card"
              data-product-id={p.product_id}
              data-plan={p.plan ?? ''}
              data-period={p.period ?? ''}
              data-current={action.kind === 'current'}
            >
              <h3>
                {p.name} {p.plan && <span className="mall-tag">{t(p.plan === 'full' ? 'mall.plan.full' : 'mall.plan.lite')}</span>}
              </h3>
              {action.kind === 'current' && <span className="mall-tag mall-tag--current">{t('mall.current')}</span>}
              <span className="mall-card__price">
                {period === 'month' ? t('mall.perMonth', { price: shown }) : t('mall.perYear', { price: shown })}
                {was !== null && save !== null && <s className="muted">{price(was, p.currency)}</s>}
              </span>
              {save !== null && <span className="mall-tag">{offer ? t('mall.firstPlanOff', { n: save }) : t('mall.save', { n: save })}</span>}
              <ul className="mall-features">
                {p.coins > 0 && <li>{t('mall.monthlyCredits', { n: p.coins })}</li>}
                {p.infinite_queue && <li>{t('mall.infiniteQueue')}</li>}
                {p.features.map((f) => (
                  <li key={f}>{f}</li>
                ))}
              </ul>
              {action.kind === 'subscribe' && (
                <button
                  type="button"
                  className="button button--primary"
                  disabled={busy !== null}
                  aria-busy={busy === p.product_id}
                  onClick={() => void buy(p.product_id, { kind: 'product', product: p, useDiscount: offer !== undefined })}
                >
                  {busy === p.product_id ? t('mall.buying') : t('mall.subscribe')}
                </button>
              )}
              {action.kind === 'current' && (
                <Link to={localePath(locale, mallPath('subscription'))} className="button">
                  {t('mall.manage')}
                </Link>
              )}
              {action.kind === 'upgrade' && (
                <>
                  <button
                    type="button"
                    className="button button--primary"
                    disabled={busy !== null}
                    aria-busy={busy === p.product_id}
                    onClick={() => void buy(p.product_id, { kind: 'upgrade', productId: p.product_id })}
                  >
                    {t('mall.upgrade', { price: price(action.price.price, action.price.currency) })}
                  </button>
                  <span className="muted mall-small mall-card__note">{t('mall.upgradeNote', { n: action.price.days_left })}</span>
                </>
              )}
              {action.kind === 'unavailable' && (
                <button type="button" className="button" disabled>
                  {t('mall.notAvailable')}
                </button>
              )}
            </li>
          );
        })}
      </ul>
    </>
  );
}
