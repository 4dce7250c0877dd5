// The check-in panel's time zone line: the zone days follow, and a way to
// change it (a list of IANA zones, this device's first). Once a zone is
// pinned it can change once every 30 days, which the line says before the
// change and, after it, until when.
import { useState } from 'react';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { localeAtom } from '../router/router';
import type { CheckinInfo } from './model';
import { browserZone, zoneChange, zoneChoices } from './model';

interface Props {
  info: CheckinInfo;
  busy: boolean;
  now: number;
  /** Changes the zone; resolves true once it is changed. */
  onChange: (tz: string) => Promise<boolean>;
}

export function ZonePicker({ info, busy, now, onChange }: Props) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const [editing, setEditing] = useState(false);
  const device = browserZone();
  const [choice, setChoice] = useState(() => (device !== null && device !== info.time_zone ? device : info.time_zone));
  const state = zoneChange(info, now);

  if (!editing) {
    return (
      <span className="checkin-zone" data-testid="checkin-zone" data-zone={info.time_zone}>
        {t('checkin.zone', { zone: info.time_zone })}{' '}
        {state.kind === 'wait' ? (
          <span className="muted" data-testid="checkin-zone-wait">
            {t('checkin.zoneWait', { date: new Date(state.until).toLocaleDateString(locale, { year: 'numeric', month: 'short', day: 'numeric' }) })}
          </span>
        ) : (
          <button type="button" className="button button--link" data-testid="checkin-zone-change" onClick={() => setEditing(true)}>
            {t('checkin.zoneChange')}
          </button>
        )}
      </span>
    );
  }
  return (
    <span className="checkin-zone checkin-zone--form">
      <label className="checkin-zone__label">
        {t('checkin.zoneLabel')}
        <select data-testid="checkin-zone-select" value={choice} onChange={(e) => setChoice(e.target.value)}>
          {zoneChoices(info.time_zone, device).map((z) => (
            <option key={z} value={z}>
              {z === device ? t('checkin.zoneDevice', { zone: z }) : z}
            </option>
          ))}
        </select>
      </label>
      {state.kind === 'once' && <span className="muted checkin-zone__rule">{t('checkin.zoneRule')}</span>}
      <span className="checkin-zone__actions">
        <button
          type="button"
          className="button button--primary"
          data-testid="checkin-zone-save"
          disabled={busy || choice === info.time_zone}
          onClick={() => {
            void onChange(choice).then((done) => {
              if (done) setEditing(false);
            });
          }}
        >
          {t('checkin.zoneSave')}
        </button>
        <button type="button" className="button" onClick={() => setEditing(false)}>
          {t('checkin.zoneCancel')}
        </button>
      </span>
    </span>
  );
}
