// The credit packs: credits, price (with the saving against the original price) and Buy.
import type { Product } from '../api/mall';
import { useT } from '../i18n/useT';
import { usePrice } from './hooks';
import { savingPercent } from './money';
import { useBuy } from './useBuy';

export function CreditPacks({ packs, compact = false }: { packs: Product[]; compact?: boolean }) {
  const t = useT();
  const price = usePrice();
  const { busy, error, buy } = useBuy();
  if (packs.length === 0) return <p className="muted">{t('mall.noPacks')}</p>;
  return (
    <>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <ul className={compact ? 'mall-packs mall-packs--compact' : 'mall-packs'}>
        {packs.map((p) => {
          const save = savingPercent(p.price, p.original_price);
          return (
            <li key={p.product_id} className="mall-card" data-testid="credit-pack" data-product-id={p.product_id}>
              <strong className="mall-card__coins">{t('mall.packCoins', { n: p.coins })}</strong>
              {p.name.trim() !== t('mall.packCoins', { n: p.coins }) && <span className="muted">{p.name}</span>}
              <span className="mall-card__price">
                {price(p.price, p.currency)}
                {p.original_price !== null && save !== null && <s className="muted">{price(p.original_price, p.currency)}</s>}
              </span>
              {save !== null && <span className="mall-tag">{t('mall.save', { n: save })}</span>}
              <button
                type="button"
                className="button button--primary"
                disabled={busy !== null}
                aria-busy={busy === p.product_id}
                onClick={() => void buy(p.product_id, { kind: 'product', product: p })}
              >
                {busy === p.product_id ? t('mall.buying') : t('mall.buy')}
              </button>
            </li>
          );
        })}
      </ul>
    </>
  );
}
