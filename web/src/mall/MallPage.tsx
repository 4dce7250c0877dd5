// `/{locale}/mall`: recent purchases, the credit packs and the plan comparison (with the
// viewer's current plan and upgrade prices when subscribed).
import { loggedInAtom } from '../account/atoms';
import type { DiscountInfo, Product, SubList, UpgradePrice } from '../api/mall';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { CreditPacks } from './CreditPacks';
import { useErrorText, useLoad } from './hooks';
import { holdsPlan } from './plans';
import { PlanTable } from './PlanTable';
import { RecentTicker } from './RecentTicker';
import { mallPath } from './route';
import { mallApi } from './services';
import './mall.css';

interface MallData {
  products: Product[];
  sub: SubList;
  upgrades: UpgradePrice[];
  discounts: DiscountInfo['items'];
}

const NO_DISCOUNT: DiscountInfo = { eligible: false, off_rate: 0, items: [] };

/** Products for everyone; the current plan, upgrade prices and the first-plan offer only when logged in. */
export async function loadMall(loggedIn: boolean): Promise<MallData> {
  const [products, sub, discount] = await Promise.all([
    mallApi.products(),
    loggedIn ? mallApi.subList() : Promise.resolve<SubList>({ items: [], current: null }),
    loggedIn ? mallApi.discounts().catch(() => NO_DISCOUNT) : Promise.resolve(NO_DISCOUNT),
  ]);
  const upgrades = holdsPlan(sub.current) ? await mallApi.upgradePrices().catch(() => []) : [];
  return { products, sub, upgrades, discounts: discount.eligible ? discount.items : [] };
}

export function MallPage() {
  const t = useT();
  const errorText = useErrorText();
  const locale = useAtomValue(localeAtom);
  const loggedIn = useAtomValue(loggedInAtom);
  const [data, reload] = useLoad(() => loadMall(loggedIn), `mall:${loggedIn}`);
  return (
    <div className="mall" data-testid="mall-page">
      <header className="mall__head">
        <h1>{t('mall.title')}</h1>
        <p className="muted">{t('mall.intro')}</p>
        {loggedIn && (
          <nav className="mall__links">
            <Link to={localePath(locale, mallPath('orders'))}>{t('mall.ordersLink')}</Link>
            <Link to={localePath(locale, mallPath('subscription'))}>{t('mall.subscriptionLink')}</Link>
            <Link to={localePath(locale, '/ornaments')}>{t('ornaments.nav')}</Link>
          </nav>
        )}
      </header>
      <RecentTicker />
      {data.state === 'loading' && <p className="muted">{t('mall.loading')}</p>}
      {data.state === 'error' && (
        <p className="form-error" role="alert">
          {errorText(data.error)}{' '}
          <button type="button" className="button button--link" onClick={reload}>
            {t('mall.retry')}
          </button>
        </p>
      )}
      {data.state === 'ready' && (
        <>
          {!loggedIn && <p className="muted">{t('mall.loginToBuy')}</p>}
          <section aria-labelledby="mall-plans">
            <h2 id="mall-plans">{t('mall.plans')}</h2>
            <PlanTable
              products={data.value.sub.items.length > 0 ? data.value.sub.items : data.value.products}
              current={data.value.sub.current}
              upgrades={data.value.upgrades}
              discounts={data.value.discounts}
            />
          </section>
          <section aria-labelledby="mall-packs">
            <h2 id="mall-packs">{t('mall.packs')}</h2>
            <CreditPacks packs={data.value.products.filter((p) => p.kind === 'credits').sort((a, b) => a.sort - b.sort || a.price - b.price)} />
          </section>
        </>
      )}
    </div>
  );
}
