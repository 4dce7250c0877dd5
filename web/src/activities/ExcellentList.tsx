// The excellent list per judged period: the winners in rank order with the
// prize each was paid, newest period first.
import { useT } from '../i18n/useT';
import { useErrorText } from '../tavern/useErrorText';
import { useLoaded } from '../tavern/useLoaded';
import { activitiesApi } from './actions';
import { EntryTile } from './EntryTile';
import { SpanText } from './parts';
import type { ActivityDetail, ExcellentPeriod } from './types';

export function ExcellentList({ activity, version }: { activity: ActivityDetail; version: number }) {
  const t = useT();
  const errorText = useErrorText();
  const list = useLoaded(() => activitiesApi.excellent(activity.id), [activity.id, version], null as ExcellentPeriod[] | null);
  if (list.failed) {
    return (
      <p role="alert" className="tavern__error">
        {errorText(list.error)}
      </p>
    );
  }
  if (list.value === null) return <p className="muted">{t('activities.loading')}</p>;
  const judged = list.value.filter((p) => p.winners.length > 0 || p.status === 'judged');
  if (judged.length === 0) return <p className="muted" data-testid="excellent-none">{t('activities.excellent.none')}</p>;
  return (
    <div className="act-excellent" data-testid="excellent-list">
      {judged.map((p) => (
        <section key={p.period} className="act-excellent__period" data-testid="excellent-period" data-period={p.period}>
          <h3>
            {t('activities.period', { n: p.period + 1 })} · <SpanText span={p} />
          </h3>
          {p.winners.length === 0 ? (
            <p className="muted">{t('activities.excellent.empty')}</p>
          ) : (
            <div className="act-entries">
              {p.winners.map((w) => (
                <EntryTile
                  key={w.entry.entry_id}
                  entry={{ ...w.entry, rank: w.rank, prize: w.prize }}
                  showVotes={p.judging === 'votes'}
                  votable={false}
                  extra={
                    <p className="act-winner" data-testid="excellent-winner" data-rank={w.rank} data-obj={w.entry.obj_id}>
                      {t('activities.prize.rank', { rank: w.rank, credits: w.prize })}
                    </p>
                  }
                />
              ))}
            </div>
          )}
        </section>
      ))}
    </div>
  );
}
