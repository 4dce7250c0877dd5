// The header's check-in entry for a signed-in user: the streak at a glance,
// and a panel with the calendar and the button.
import { useEffect, useRef, useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { CheckinPanel, StreakFlames } from './CheckinPanel';
import { useCheckin } from './useCheckin';
import './checkin.css';

export function CheckinEntry() {
  const t = useT();
  const loggedIn = useAtomValue(loggedInAtom);
  const { info, busy, error, load, checkIn, changeZone } = useCheckin();
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLSpanElement>(null);

  useEffect(() => {
    if (loggedIn) void load();
  }, [loggedIn, load]);

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (box.current && e.target instanceof Node && !box.current.contains(e.target)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(false);
    };
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  if (!loggedIn) return null;
  const streak = info?.streak ?? 0;
  return (
    <span className="checkin-entry" ref={box}>
      <button
        type="button"
        className={info !== null && !info.checked_today ? 'button button--link checkin-entry__button checkin-entry__button--due' : 'button button--link checkin-entry__button'}
        data-testid="checkin-entry"
        aria-expanded={open}
        onClick={() => {
          setOpen((o) => !o);
          if (!open) void load();
        }}
      >
        <StreakFlames streak={Math.min(streak, 1)} />
        <span className="checkin-entry__label">{streak > 0 ? t('checkin.entryStreak', { n: streak }) : t('checkin.entry')}</span>
      </button>
      {open && (
        <div className="checkin-panel" role="dialog" aria-label={t('checkin.title')} data-testid="checkin-panel">
          <h2 className="checkin-panel__title">{t('checkin.title')}</h2>
          <CheckinPanel info={info} busy={busy} error={error} onCheckIn={() => void checkIn()} onChangeZone={changeZone} />
        </div>
      )}
    </span>
  );
}
