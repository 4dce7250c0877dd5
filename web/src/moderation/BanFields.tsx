// A ban's length: the preset durations (an hour to a year, or permanent).
import { useId } from 'react';
import { useT } from '../i18n/useT';
import type { BanDuration } from './model';
import { BAN_DURATIONS } from './model';

export function BanFields({ duration, onDuration }: { duration: BanDuration; onDuration: (d: BanDuration) => void }) {
  const t = useT();
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{t('moderation.bans.duration')}</label>
      <select id={id} value={duration} onChange={(e) => onDuration(Number(e.target.value) as BanDuration)}>
        {BAN_DURATIONS.map((d) => (
          <option key={d} value={d}>
            {t(`moderation.bans.duration.${d}`)}
          </option>
        ))}
      </select>
    </div>
  );
}
