// The check-in panel: streak flames, the current cycle's calendar with each
// day's reward, and the button (or when the next check-in opens); the zone
// days follow, with a way to change it (`ZonePicker`).
import { useEffect, useState } from 'react';
import { useT } from '../i18n/useT';
import type { CheckinInfo } from './model';
import { cellState, dayOfMonth, flameLevel, flames, untilNext } from './model';
import { ZonePicker } from './ZonePicker';

interface Props {
  info: CheckinInfo | null;
  busy: boolean;
  error: string | null;
  onCheckIn: () => void;
  /** Changes the account's zone (resolves true once changed); without it the zone is only shown. */
  onChangeZone?: (tz: string) => Promise<boolean>;
}

/** The time now, refreshed every 30 s (the countdown to the next check-in). */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(id);
  }, []);
  return now;
}

/** One flame (an outline when the streak is out). */
function Flame() {
  return (
    <svg className="checkin-flame" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false">
      <path d="M12 2c1 3.2-.6 5-2.1 6.7C8.4 10.4 7 12 7 14.6A5 5 0 0 0 12 20a5 5 0 0 0 5-5.3c0-2.2-1.1-3.7-2-4.8-.2 1.4-.9 2.4-2 2.9.6-3.3-.2-7.3-1-10.8Z" />
    </svg>
  );
}

/** The streak as flames: one a day, up to a week; one outline when there is none. */
export function StreakFlames({ streak }: { streak: number }) {
  const n = flames(streak);
  return (
    <span className={`checkin-flames checkin-flames--${flameLevel(streak)}`} aria-hidden="true" data-flames={n}>
      {Array.from({ length: Math.max(1, n) }, (_, i) => (
        <Flame key={i} />
      ))}
    </span>
  );
}

export function CheckinPanel({ info, busy, error, onCheckIn, onChangeZone }: Props) {
  const t = useT();
  const now = useNow();
  if (info === null) return <p className="muted">{error ?? '…'}</p>;
  return (
    <div className="checkin-panel__body">
      <p className="checkin-panel__streak" data-testid="checkin-streak" data-streak={info.streak}>
        <StreakFlames streak={info.streak} /> {info.streak > 0 ? t('checkin.streak', { n: info.streak }) : t('checkin.noStreak')}
      </p>
      <ol className="checkin-calendar" aria-label={t('checkin.title')}>
        {info.calendar.map((d) => (
          <li key={d.streak_day} className={`checkin-day checkin-day--${cellState(d)}`} data-testid="checkin-day" data-checked={d.checked} data-today={d.today} title={d.date}>
            <span className="checkin-day__label">{t('checkin.day', { n: d.streak_day })}</span>
            <span className="checkin-day__date">{dayOfMonth(d.date)}</span>
            <span className="checkin-day__reward">{d.checked ? '✓' : t('checkin.reward', { n: d.reward })}</span>
          </li>
        ))}
      </ol>
      {info.checked_today ? (
        <p className="checkin-panel__done" data-testid="checkin-done">
          {t('checkin.done')} · {t('checkin.next', { time: untilNext(info.next_at, now) })}
        </p>
      ) : (
        <button type="button" className="button button--primary" data-testid="checkin-button" disabled={busy} onClick={onCheckIn}>
          {t('checkin.button', { n: info.reward_today })}
        </button>
      )}
      {error !== null && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <p className="muted checkin-panel__foot">
        {t('checkin.total', { n: info.total_days })} ·{' '}
        {onChangeZone ? <ZonePicker info={info} busy={busy} now={now} onChange={onChangeZone} /> : t('checkin.zone', { zone: info.time_zone })}
      </p>
    </div>
  );
}
