// `/activities/{id}` (and the card links `/event-center/daily/{id}`,
// `/event-center/{id}/{period}`): an activity's page. The header (cover,
// dates, countdown, prizes, types, Join), the rules (the server's sanitised
// HTML, the only HTML shown), my contributions with their status, the
// periods with each one's contributions (newest or most voted, vote buttons
// while voting is open) and the excellent lists with winners and prizes.
import { useState } from 'react';
import { accountAtom, loggedInAtom } from '../account/atoms';
import { NotFoundPage } from '../app/NotFoundPage';
import { isApiError } from '../api/client';
import { useT } from '../i18n/useT';
import { requireLogin } from '../square/actions';
import { usePaged } from '../square/usePaged';
import { useAtomValue } from '../state/jotai';
import { useErrorText } from '../tavern/useErrorText';
import { useLoaded } from '../tavern/useLoaded';
import { activitiesApi, useNow } from './actions';
import { EntryTile } from './EntryTile';
import { ExcellentList } from './ExcellentList';
import { JoinDialog } from './JoinDialog';
import { applyVote, canVote, joinBlock, livePeriod, myEntriesIn } from './model';
import { CountdownText, PrizeList, SpanText, StatusLabel, TypeChips } from './parts';
import { activityStatus, currentPeriodIndex, periodStatus } from './time';
import type { ActivityDetail, Entry, EntrySort } from './types';
import './activities.css';

/** The envelope code of an unknown activity (ACT_API.md). */
const ACTIVITY_NOT_FOUND = 40608;

export function ActivityPage({ id, period }: { id: string; period: number | null }) {
  const t = useT();
  const errorText = useErrorText();
  const loggedIn = useAtomValue(loggedInAtom);
  const [version, setVersion] = useState(0);
  const detail = useLoaded(() => activitiesApi.detail(id), [id, loggedIn, version], null as ActivityDetail | null);
  if (detail.failed && isApiError(detail.error) && (detail.error.code === ACTIVITY_NOT_FOUND || detail.error.code === 40400)) return <NotFoundPage />;
  if (detail.value === null || detail.value.id !== id) {
    return detail.failed ? (
      <p role="alert" className="tavern__error">
        {errorText(detail.error)}{' '}
        <button type="button" className="button button--small" onClick={detail.reload}>
          {t('activities.retry')}
        </button>
      </p>
    ) : (
      <p className="muted">{t('activities.loading')}</p>
    );
  }
  return <ActivityView activity={detail.value} initialPeriod={period} version={version} onChanged={() => setVersion((v) => v + 1)} />;
}

function ActivityView({ activity, initialPeriod, version, onChanged }: { activity: ActivityDetail; initialPeriod: number | null; version: number; onChanged: () => void }) {
  const t = useT();
  // Statuses, Join and the vote buttons turn over with this clock; the countdown ticks on its own.
  const now = useNow(5000);
  const loggedIn = useAtomValue(loggedInAtom);
  const me = useAtomValue(accountAtom);
  const [joining, setJoining] = useState(false);
  const [joinedNote, setJoinedNote] = useState<string | null>(null);
  const firstPeriod = initialPeriod ?? activity.current_period ?? activity.periods[currentPeriodIndex(activity.periods, now)]?.index ?? 0;
  const [selected, setSelected] = useState<number>(firstPeriod);
  const [sort, setSort] = useState<EntrySort>('new');
  const mine = useLoaded(() => (loggedIn ? activitiesApi.myApply(activity.id, null, 50).then((p) => p.items) : Promise.resolve([] as Entry[])), [activity.id, loggedIn, version], [] as Entry[]);
  const live = livePeriod(activity.periods, now);
  const block = joinBlock(activity, loggedIn, live === null ? 0 : myEntriesIn(mine.value, activity.id, live.index), now);
  const status = activityStatus(activity.periods, now);
  const period = activity.periods.find((p) => p.index === selected) ?? null;

  function join() {
    if (!requireLogin()) return;
    setJoining(true);
  }

  return (
    <article className="act-detail" data-testid="activity-page" data-id={activity.id} data-status={status}>
      <header className="act-hero">
        {activity.cover?.url && <img className="act-hero__cover" src={activity.cover.url} alt="" />}
        <div className="act-hero__text">
          <h1>
            {activity.title} {activity.daily && <span className="act-daily">{t('activities.daily')}</span>}
          </h1>
          <div className="act-tile__meta">
            <StatusLabel status={status} />
            <SpanText span={activity} />
          </div>
          <CountdownText periods={activity.periods} />
          <PrizeList prizes={activity.prizes} />
          <TypeChips types={activity.types} />
          <p className="muted">
            {t(activity.judging === 'votes' ? 'activities.judging.votes' : 'activities.judging.picks')} · {t('activities.maxEntries', { n: activity.max_entries })} ·{' '}
            {t('activities.entries', { n: activity.entries })}
          </p>
          <div className="act-hero__join">
            <button type="button" className="button button--primary" disabled={block === 'closed' || block === 'limit'} onClick={join} data-testid="activity-join">
              {t('activities.join')}
            </button>
            {block === 'closed' && <span className="muted">{t('activities.join.closed')}</span>}
            {block === 'limit' && <span className="muted">{t('activities.join.limit', { n: activity.max_entries })}</span>}
            {joinedNote !== null && (
              <span role="status" data-testid="join-done">
                {joinedNote}
              </span>
            )}
          </div>
        </div>
      </header>

      <section className="act-section" aria-labelledby="act-rules">
        <h2 id="act-rules">{t('activities.rules')}</h2>
        {/* The server rendered and sanitised the Markdown rules like articles (backend/src/square/markdown.rs); it is the only HTML shown. */}
        <div className="act-rules" data-testid="activity-rules" dangerouslySetInnerHTML={{ __html: activity.rules_html ?? '' }} />
      </section>

      {loggedIn && mine.value.length > 0 && (
        <section className="act-section" aria-labelledby="act-mine" data-testid="my-apply">
          <h2 id="act-mine">{t('activities.mine')}</h2>
          <ul className="act-mine">
            {mine.value.map((e) => (
              <li key={e.entry_id} data-testid="my-apply-entry" data-obj={e.obj_id} data-status={e.status}>
                <span>{e.title || t('square.card.untitled')}</span>
                <span className="muted">{e.period === null ? '' : t('activities.period', { n: e.period + 1 })}</span>
                <span className={`act-status act-status--${e.status}`}>{t(`activities.entry.${e.status}`)}</span>
                {e.rank !== null && e.prize !== null && <span>{t('activities.prize.rank', { rank: e.rank, credits: e.prize })}</span>}
              </li>
            ))}
          </ul>
        </section>
      )}

      <section className="act-section" aria-labelledby="act-entries">
        <h2 id="act-entries">{t('activities.contributions')}</h2>
        {activity.periods.length > 1 && (
          <div className="tabs act-periods" role="tablist" aria-label={t('activities.periods')}>
            {activity.periods.map((p) => (
              <button key={p.index} type="button" role="tab" className="tabs__tab" aria-selected={p.index === selected} onClick={() => setSelected(p.index)} data-testid="period-tab" data-period={p.index}>
                {t('activities.period', { n: p.index + 1 })} · {t(`activities.status.${periodStatus(p, now)}`)}
              </button>
            ))}
          </div>
        )}
        {period !== null && (
          <p className="muted">
            <SpanText span={period} /> · <StatusLabel status={periodStatus(period, now)} />
          </p>
        )}
        <div className="tabs" role="tablist" aria-label={t('activities.sort')}>
          {(['new', 'top'] as const).map((s) => (
            <button key={s} type="button" role="tab" className="tabs__tab" aria-selected={s === sort} onClick={() => setSort(s)} data-testid={`sort-${s}`}>
              {t(`activities.sort.${s}`)}
            </button>
          ))}
        </div>
        <EntryGrid activity={activity} period={selected} sort={sort} myId={me?.id ?? null} now={now} version={version} />
      </section>

      <section className="act-section" aria-labelledby="act-excellent">
        <h2 id="act-excellent">{t('activities.excellent')}</h2>
        <ExcellentList activity={activity} version={version} />
      </section>

      {joining && (
        <JoinDialog
          activity={activity}
          onClose={() => setJoining(false)}
          onJoined={(answer) => {
            setJoining(false);
            setJoinedNote(t('activities.join.done', { n: (answer.period ?? 0) + 1 }));
            onChanged();
          }}
        />
      )}
    </article>
  );
}

/** One period's contributions, paged, newest or most voted first. */
function EntryGrid({ activity, period, sort, myId, now, version }: { activity: ActivityDetail; period: number; sort: EntrySort; myId: string | null; now: number; version: number }) {
  const t = useT();
  const errorText = useErrorText();
  const list = usePaged<Entry>((cursor) => activitiesApi.posts(activity.id, period, sort, cursor), (e) => e.entry_id, [activity.id, period, sort, version]);
  const { items, loaded, loading, error, cursor } = list.state;
  return (
    <>
      {error !== null && (
        <p role="alert" className="tavern__error">
          {errorText(error)}{' '}
          <button type="button" className="button button--small" onClick={list.retry}>
            {t('activities.retry')}
          </button>
        </p>
      )}
      {loaded && items.length === 0 && error === null && <p className="muted">{t('activities.contributions.none')}</p>}
      <div className="act-entries" data-testid="activity-entries" data-period={period}>
        {items.map((e) => (
          <EntryTile
            key={e.entry_id}
            entry={e}
            showVotes={activity.judging === 'votes'}
            votable={canVote(activity, e, myId, now)}
            onVoted={(answer) => list.update((all) => applyVote(all, answer))}
          />
        ))}
      </div>
      {cursor !== null && (
        <button type="button" className="button" disabled={loading} onClick={list.more}>
          {t('activities.more')}
        </button>
      )}
    </>
  );
}
