// On one's own work's page: choose which bought work frame it wears (or none).
import { useState } from 'react';
import { useT } from '../i18n/useT';
import { useErrorText } from '../tavern/useErrorText';
import { useLoaded } from '../tavern/useLoaded';
import { ornamentApi } from './actions';
import type { ShopItem } from './types';

/** The owned frames, and the choice; `onChange` gets the frame's image URL (null: none). */
export function WorkFramePicker({ workId, frame, onChange }: { workId: string; frame: string | null | undefined; onChange: (url: string | null) => void }) {
  const t = useT();
  const errorText = useErrorText();
  const owned = useLoaded(async () => (await ornamentApi.list('work_frame', null, 100)).items.filter((i) => i.owned), [], [] as ShopItem[]);
  const [error, setError] = useState<string | null>(null);
  if (owned.value.length === 0) return null;
  const current = owned.value.find((o) => o.image.url === frame)?.ornament_id ?? '';

  async function choose(id: string) {
    setError(null);
    try {
      const answer = await ornamentApi.wearWorkFrame(workId, id === '' ? null : id);
      onChange(answer.frame?.image.url ?? null);
    } catch (e) {
      setError(errorText(e));
    }
  }

  return (
    <label className="orn-frame-picker">
      {t('ornaments.frame.label')}{' '}
      <select value={current} onChange={(e) => void choose(e.target.value)} data-testid="work-frame-picker">
        <option value="">{t('ornaments.frame.none')}</option>
        {owned.value.map((o) => (
          <option key={o.ornament_id} value={o.ornament_id}>
            {o.name}
          </option>
        ))}
      </select>
      {error !== null && (
        <span role="alert" className="tavern__error">
          {error}
        </span>
      )}
    </label>
  );
}
