// The feature switches `app/fetch` answers (`checkin: true`, ...): listed
// from the draft, flipped, added and removed one at a time (each change is
// saved to the draft at once, and reaches the app when the draft is
// published, like every other change of the composer).
import { useId, useState } from 'react';
import { useT } from '../i18n/useT';
import { homeApi } from './api';
import type { Save } from './ComposerForms';

/** A switch name the server accepts: 1 to 32 of a-z, 0-9, '-', '_'. */
export function isFeatureName(s: string): boolean {
  return /^[a-z0-9_-]{1,32}$/.test(s);
}

export function FeaturesPanel({ features, live, save }: { features: Record<string, boolean>; live: boolean; save: Save }) {
  const t = useT();
  const id = useId();
  const [name, setName] = useState('');
  const names = Object.keys(features).sort();
  const put = (next: Record<string, boolean>) => save((v) => homeApi.setFeatures(v, next));
  const trimmed = name.trim();
  return (
    <section className="home-features" data-testid="home-features" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('home.features.title')}</h2>
      <p className="muted">{live ? t('home.features.live') : t('home.features.draft')}</p>
      {names.length === 0 && <p className="muted">{t('home.features.none')}</p>}
      <ul className="home-composer__items">
        {names.map((n) => (
          <li key={n} data-testid="feature" data-name={n}>
            <label className="inline">
              <input type="checkbox" data-testid={`feature-${n}`} checked={features[n] === true} onChange={(e) => void put({ ...features, [n]: e.target.checked })} />
              <code>{n}</code>
            </label>
            <button
              type="button"
              className="button button--link"
              data-testid={`feature-remove-${n}`}
              onClick={() => {
                const next = { ...features };
                delete next[n];
                void put(next);
              }}
            >
              {t('home.compose.delete')}
            </button>
          </li>
        ))}
      </ul>
      <form
        className="field"
        onSubmit={(e) => {
          e.preventDefault();
          if (!isFeatureName(trimmed)) return;
          void put({ ...features, [trimmed]: true }).then((ok) => ok && setName(''));
        }}
      >
        <label htmlFor={`${id}-name`}>{t('home.features.name')}</label>
        <input id={`${id}-name`} data-testid="feature-name" value={name} placeholder="checkin" onChange={(e) => setName(e.target.value)} />
        <button type="submit" className="button" data-testid="feature-add" disabled={!isFeatureName(trimmed) || trimmed in features}>
          {t('home.features.add')}
        </button>
      </form>
    </section>
  );
}
