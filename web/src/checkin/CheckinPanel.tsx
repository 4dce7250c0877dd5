// The check-in panel: streak flames, the current cycle's calendar with each
// day's reward, and the button (or when the next check-in opens).
import { useEffect, useState } from 'react';
import { useT } from '../i18n/useT';
import type { CheckinInfo } from './model';
import { cellState, dayOfMonth, flameLevel, flames, untilNext } from './model';

interface Props {
  info: CheckinInfo | null;
  busy: boolean;
  error: string | null;
  onCheckIn: () => void;
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

export function StreakFlames({ streak }: { streak: number }) {
  const n = flames(streak);
  return (
    <span className={`checkin-flames checkin-flames--${flameLevel(streak)}`} aria-hidden="true">
      {n === 0 ? '🕯' : '🔥'.repeat(n)}
    </span>
  );
}

export function CheckinPanel({ info, busy, error, onCheckIn }: Props) {
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
        {t('checkin.total', { n: info.total_days })} · {t('checkin.zone', { zone: info.time_zone })}
      </p>
    </div>
  );
}
