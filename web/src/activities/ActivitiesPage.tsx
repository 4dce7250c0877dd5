// `/activities`: theme activities by status (live, upcoming, ended) and, for
// a signed-in account, the ones I joined; each tile shows the cover, title,
// dates, a ticking countdown, the prizes and the contribution types.
import { useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import { useT } from '../i18n/useT';
import { usePaged } from '../square/usePaged';
import { useErrorText } from '../tavern/useErrorText';
import { useAtomValue } from '../state/jotai';
import { HomeSlot } from '../home/HomeSlot';
import { activitiesApi, useNow } from './actions';
import { ActivityTile } from './parts';
import type { ActivitySummary } from './types';
import './activities.css';

const TABS = ['live', 'upcoming', 'ended', 'mine'] as const;
type Tab = (typeof TABS)[number];

export function ActivitiesPage() {
  const t = useT();
  const errorText = useErrorText();
  const loggedIn = useAtomValue(loggedInAtom);
  const [tab, setTab] = useState<Tab>('live');
  // Tile statuses turn over with this clock; each countdown ticks on its own.
  const now = useNow(15_000);
  const shown = loggedIn ? TABS : TABS.filter((x) => x !== 'mine');
  const current: Tab = !loggedIn && tab === 'mine' ? 'live' : tab;
  const list = usePaged<ActivitySummary>(
    (cursor) => (current === 'mine' ? activitiesApi.myList(cursor) : activitiesApi.list(current, cursor)),
    (a) => a.id,
    [current, loggedIn],
  );
  const { items, loaded, loading, error, cursor } = list.state;
  return (
    <section className="act-page" data-testid="activities-page">
      <h1>{t('activities.title')}</h1>
      <p className="muted">{t('activities.tagline')}</p>
      <HomeSlot name="activities-top" />
      <div className="tabs" role="tablist" aria-label={t('activities.title')}>
        {shown.map((x) => (
          <button key={x} type="button" role="tab" className="tabs__tab" aria-selected={x === current} onClick={() => setTab(x)} data-testid={`activities-tab-${x}`}>
            {t(`activities.tab.${x}`)}
          </button>
        ))}
      </div>
      {error !== null && (
        <p role="alert" className="tavern__error">
          {errorText(error)}{' '}
          <button type="button" className="button button--small" onClick={list.retry}>
            {t('activities.retry')}
          </button>
        </p>
      )}
      {loaded && items.length === 0 && error === null && <p className="muted" data-testid="activities-empty">{t(`activities.empty.${current}`)}</p>}
      <div className="act-grid" data-testid="activities-list">
        {items.map((a) => (
          <ActivityTile key={a.id} activity={a} now={now} />
        ))}
      </div>
      {cursor !== null && (
        <button type="button" className="button" disabled={loading} onClick={list.more}>
          {t('activities.more')}
        </button>
      )}
    </section>
  );
}
