// "Recent purchases": the platform's latest buys (names masked by the server), read once.
import type { RecentRecord } from '../api/mall';
import { useT } from '../i18n/useT';
import { useLoad } from './hooks';
import { mallApi } from './services';

export function RecentTicker() {
  const t = useT();
  const [records] = useLoad<RecentRecord[]>(() => mallApi.recentRecords(), 'recent');
  if (records.state !== 'ready' || records.value.length === 0) return null;
  const items = records.value.slice(0, 12);
  return (
    <section className="mall-ticker" aria-label={t('mall.recent')} data-testid="recent-purchases">
      <span className="mall-ticker__label">{t('mall.recent')}</span>
      <ul className="mall-ticker__list">
        {items.map((r, i) => (
          <li key={`${r.at}-${i}`}>{t('mall.recentItem', { name: r.name, product: r.product_name })}</li>
        ))}
      </ul>
    </section>
  );
}
