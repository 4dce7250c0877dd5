// The composer's shared fields: targeting (audiences, languages), the
// schedule (start and end), and an image picked by address or upload.
import { useId, useState } from 'react';
import { api } from '../app/services';
import { IMAGE_UPLOAD_CATEGORY, uploadFile } from '../generator/upload';
import { useT } from '../i18n/useT';
import { fromLocalInput, sameSitePath, toLocalInput } from './carousel';
import type { Audience, Schedule, Targeting } from './types';

const AUDIENCES: Audience[] = ['visitor', 'free', 'member'];

export function TargetingFields({ value, onChange, prefix }: { value: Targeting; onChange: (t: Targeting) => void; prefix: string }) {
  const t = useT();
  const id = useId();
  return (
    <>
      <div className="field" role="group" aria-label={t('home.compose.audiences')}>
        <span>{t('home.compose.audiences')}</span>
        {AUDIENCES.map((a) => (
          <label key={a} className="inline">
            <input
              type="checkbox"
              data-testid={`${prefix}-aud-${a}`}
              checked={value.audiences.includes(a)}
              onChange={(e) =>
                onChange({
                  ...value,
                  audiences: e.target.checked ? [...value.audiences, a] : value.audiences.filter((x) => x !== a),
                })
              }
            />
            {t(`home.audience.${a}`)}
          </label>
        ))}
        <small className="muted">{t('home.compose.allIfNone')}</small>
      </div>
      <div className="field">
        <label htmlFor={`${id}-lang`}>{t('home.compose.languages')}</label>
        <input
          id={`${id}-lang`}
          data-testid={`${prefix}-languages`}
          placeholder="en, zh"
          value={value.languages.join(', ')}
          onChange={(e) =>
            onChange({
              ...value,
              languages: e.target.value
                .split(/[\s,]+/)
                .map((s) => s.trim())
                .filter((s) => s !== ''),
            })
          }
        />
      </div>
    </>
  );
}

export function ScheduleFields({ value, onChange }: { value: Schedule; onChange: (s: Schedule) => void }) {
  const t = useT();
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={`${id}-start`}>{t('home.compose.start')}</label>
      <input
        id={`${id}-start`}
        type="datetime-local"
        value={toLocalInput(value.start)}
        onChange={(e) => onChange({ ...value, start: fromLocalInput(e.target.value) })}
      />
      <label htmlFor={`${id}-end`}>{t('home.compose.end')}</label>
      <input
        id={`${id}-end`}
        type="datetime-local"
        value={toLocalInput(value.end)}
        onChange={(e) => onChange({ ...value, end: fromLocalInput(e.target.value) })}
      />
    </div>
  );
}

export function ImageField({ value, onChange, testId }: { value: string; onChange: (url: string) => void; testId: string }) {
  const t = useT();
  const id = useId();
  const [uploading, setUploading] = useState(false);
  return (
    <div className="field">
      <label htmlFor={`${id}-url`}>{t('home.compose.image')}</label>
      <input id={`${id}-url`} data-testid={testId} value={value} placeholder="/files/… or https://…" onChange={(e) => onChange(e.target.value)} />
      <input
        type="file"
        accept="image/png,image/jpeg,image/webp,image/gif"
        aria-label={t('home.compose.upload')}
        disabled={uploading}
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (!file) return;
          setUploading(true);
          uploadFile({ api, file, fileName: file.name, category: IMAGE_UPLOAD_CATEGORY })
            .then((url) => onChange(sameSitePath(url, window.location.origin)))
            .catch(() => undefined)
            .finally(() => setUploading(false));
        }}
      />
      {value !== '' && <img className="home-composer__thumb" src={value} alt="" width={96} />}
    </div>
  );
}
