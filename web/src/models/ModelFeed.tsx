// The models feed (spec 3 §2 page key `model`): published models as cards
// with the modelType and baseModels filters, order and time window kept in
// the address, and cursor paging.
import { useEffect, useId, useState } from 'react';
import { Link } from '../app/Link';
import { api } from '../app/services';
import { useT } from '../i18n/useT';
import { locationAtom, navigate } from '../router/router';
import { appStore, useAtomValue } from '../state/jotai';
import type { Card } from '../square/types';
import { MODEL_TYPES, modelFeed } from './api';
import { feedBody, filtersQuery, parseFiltersQuery, ORDERS, TIMES, toggle } from './filters';
import type { ModelFilters } from './filters';
import { ErrorLine, familyName, useFamilies, useModelsHref } from './ui';

// `onChange` takes an update of the filters as they are when it runs (the
// address now), not as this render saw them: two quick clicks must not undo
// each other.
function FeedFilters({ filters, onChange }: { filters: ModelFilters; onChange: (update: (now: ModelFilters) => ModelFilters) => void }) {
  const t = useT();
  const families = useFamilies();
  const orderId = useId();
  const timeId = useId();
  return (
    <section className="panel models-filters" aria-label={t('models.filters')}>
      <div className="models-filters__row">
        <label htmlFor={orderId}>{t('models.order')}</label>
        <select id={orderId} value={filters.order_by} onChange={(e) => { const order_by = e.target.value as ModelFilters['order_by']; onChange((now) => ({ ...now, order_by })); }} data-testid="models-order">
          {ORDERS.map((o) => (
            <option key={o} value={o}>
              {t(`models.order.${o as 'recommend' | 'hot' | 'new'}`)}
            </option>
          ))}
        </select>
        <label htmlFor={timeId}>{t('models.time')}</label>
        <select id={timeId} value={filters.time_type} onChange={(e) => { const time_type = e.target.value as ModelFilters['time_type']; onChange((now) => ({ ...now, time_type })); }} data-testid="models-time">
          {TIMES.map((w) => (
            <option key={w} value={w}>
              {t(`models.time.${w}`)}
            </option>
          ))}
        </select>
      </div>
      <fieldset className="models-filters__row">
        <legend>{t('models.type')}</legend>
        {MODEL_TYPES.map((m) => (
          <button key={m} type="button" className="button models-chip" aria-pressed={filters.model_types.includes(m)} onClick={() => onChange((now) => toggle(now, 'model_types', m))} data-testid={`models-type-${m}`}>
            {t(`models.type.${m}`)}
          </button>
        ))}
      </fieldset>
      <fieldset className="models-filters__row">
        <legend>{t('models.base')}</legend>
        {families.map((f) => (
          <button key={f.id} type="button" className="button models-chip" aria-pressed={filters.base_models.includes(f.id)} onClick={() => onChange((now) => toggle(now, 'base_models', f.id))} data-testid={`models-base-${f.id}`}>
            {f.name}
          </button>
        ))}
      </fieldset>
    </section>
  );
}

export function ModelCard({ card }: { card: Card }) {
  const t = useT();
  const href = useModelsHref();
  const families = useFamilies();
  // A model card carries its type in content_sub_type and its family in sub_channel.
  const kind = card.content_sub_type;
  const typeLabel = kind === 'checkpoint' || kind === 'lora' || kind === 'embedding' ? t(`models.type.${kind}`) : null;
  return (
    <li className="models-card" data-testid="model-card" data-id={card.id}>
      <Link to={href({ view: 'detail', id: card.id })} className="models-card__link">
        {card.cover?.url ? <img src={card.cover.url} alt="" loading="lazy" className="models-card__cover" /> : <div className="models-card__cover models-card__cover--none" aria-hidden="true" />}
        <span className="models-card__title">{card.title}</span>
      </Link>
      <span className="muted models-card__meta">
        {[card.author?.name, typeLabel, card.sub_channel ? familyName(families, card.sub_channel) : null].filter(Boolean).join(' · ')}
      </span>
    </li>
  );
}

export function ModelFeed() {
  const t = useT();
  const location = useAtomValue(locationAtom);
  const filters = parseFiltersQuery(location.search);
  const query = filtersQuery(filters);
  const [items, setItems] = useState<Card[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loadedQuery, setLoadedQuery] = useState<string | null>(null);
  const loading = loadedQuery !== query;

  useEffect(() => {
    let live = true;
    modelFeed(api, feedBody(parseFiltersQuery(query), null))
      .then((p) => {
        if (!live) return;
        setItems(p.items);
        setCursor(p.next_cursor);
        setError(null);
      })
      .catch((e: unknown) => live && setError(e))
      .finally(() => live && setLoadedQuery(query));
    return () => {
      live = false;
    };
  }, [query]);

  function more() {
    if (!cursor) return;
    modelFeed(api, feedBody(filters, cursor))
      .then((p) => {
        setItems((now) => [...now, ...p.items]);
        setCursor(p.next_cursor);
      })
      .catch(setError);
  }

  return (
    <div className="models-feed">
      <FeedFilters
        filters={filters}
        onChange={(update) => {
          const now = appStore.get(locationAtom);
          navigate(appStore, now.pathname + filtersQuery(update(parseFiltersQuery(now.search))), { replace: true });
        }}
      />
      <ErrorLine error={error} />
      <ul className="models-grid" data-testid="models-feed" aria-busy={loading}>
        {items.map((c) => (
          <ModelCard key={c.id} card={c} />
        ))}
      </ul>
      {!loading && items.length === 0 && error === null && <p className="muted">{t('models.feedEmpty')}</p>}
      {cursor && (
        <button type="button" className="button" onClick={more}>
          {t('models.more')}
        </button>
      )}
    </div>
  );
}
