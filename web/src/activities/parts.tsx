// Small pieces the activity pages share: the countdown, the contribution
// type chips, the prize list, the status label and an activity's tile in
// the list.
import { Link } from '../app/Link';
import { contentLanguage } from '../i18n/messages';
import type { MessageKey } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { useNow } from './actions';
import { activityPath } from './route';
import { activityStatus, clockOf, countdown, countdownTarget, formatSpan } from './time';
import type { Span } from './time';
import type { ActivitySummary, ContributionType } from './types';

export const TYPE_KEYS: Record<ContributionType, MessageKey> = {
  work: 'activities.type.work',
  local_video: 'activities.type.local_video',
  article: 'activities.type.article',
  character: 'activities.type.character',
  model_Checkpoint: 'activities.type.model_Checkpoint',
  model_LORA: 'activities.type.model_LORA',
};

/** "Ends in 2d 04:05:06" / "Starts in …" / "Finished", ticking every second on its own (the page around it need not). */
export function CountdownText({ periods }: { periods: readonly Span[] }) {
  const t = useT();
  const now = useNow(1000);
  const target = countdownTarget(periods, now);
  if (target === null) return <span className="act-countdown act-countdown--over" data-testid="activity-countdown">{t('activities.countdown.over')}</span>;
  const c = countdown(target.at, now);
  const clock = clockOf(c);
  const left = c.days > 0 ? t('activities.countdown.days', { days: c.days, clock }) : clock;
  return (
    <span className="act-countdown" data-testid="activity-countdown" data-kind={target.kind}>
      {t(target.kind === 'ends' ? 'activities.countdown.ends' : 'activities.countdown.starts', { left })}
    </span>
  );
}

export function TypeChips({ types }: { types: readonly ContributionType[] }) {
  const t = useT();
  return (
    <ul className="act-chips" aria-label={t('activities.types')}>
      {types.map((type) => (
        <li key={type} className="act-chip" data-type={type}>
          {t(TYPE_KEYS[type])}
        </li>
      ))}
    </ul>
  );
}

export function PrizeList({ prizes }: { prizes: readonly number[] }) {
  const t = useT();
  if (prizes.length === 0) return <span className="muted">{t('activities.prizes.none')}</span>;
  return (
    <ol className="act-prizes" aria-label={t('activities.prizes')} data-testid="activity-prizes">
      {prizes.map((p, i) => (
        <li key={i}>{t('activities.prize.rank', { rank: i + 1, credits: p })}</li>
      ))}
    </ol>
  );
}

export function StatusLabel({ status }: { status: 'upcoming' | 'live' | 'ended' | 'closed' | 'judged' }) {
  const t = useT();
  return (
    <span className={`act-status act-status--${status}`} data-testid="activity-status" data-status={status}>
      {t(`activities.status.${status}`)}
    </span>
  );
}

/** The dates of the whole activity (its first start to its last end). */
export function SpanText({ span }: { span: Pick<Span, 'start' | 'end'> }) {
  const locale = useAtomValue(localeAtom);
  return <span className="act-span">{formatSpan(span, contentLanguage(locale))}</span>;
}

/** An activity in the list: cover, title, status, dates, countdown, prizes, types. */
export function ActivityTile({ activity, now }: { activity: ActivitySummary; now: number }) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const status = activityStatus(activity.periods, now);
  return (
    <article className="act-tile" data-testid="activity-tile" data-id={activity.id} data-status={status}>
      <Link to={localePath(locale, activityPath(activity.id))} className="act-tile__cover" tabIndex={-1} aria-hidden="true">
        {activity.cover?.url ? <img src={activity.cover.url} alt="" loading="lazy" /> : <span className="act-tile__blank">{activity.title}</span>}
        {activity.daily && <span className="act-daily">{t('activities.daily')}</span>}
      </Link>
      <div className="act-tile__body">
        <Link to={localePath(locale, activityPath(activity.id))} className="act-tile__title">
          {activity.title}
        </Link>
        <div className="act-tile__meta">
          <StatusLabel status={status} />
          <SpanText span={activity} />
        </div>
        <CountdownText periods={activity.periods} />
        <PrizeList prizes={activity.prizes} />
        <TypeChips types={activity.types} />
        <span className="muted">
          {t('activities.entries', { n: activity.entries })}
          {activity.my_entries !== undefined && ` · ${t('activities.myEntries', { n: activity.my_entries })}`}
        </span>
      </div>
    </article>
  );
}
