import { useId, useState } from 'react';
import type { ChangeEvent } from 'react';
import { api } from '../app/services';
import { IMAGE_UPLOAD_CATEGORY, uploadFile } from '../generator/upload';
import { useT } from '../i18n/useT';
import { Avatar } from './Avatar';

/** The character's picture: uploaded by the pre-signed flow, with its progress shown. */
export function AvatarField({ value, name, onChange }: { value: string; name: string; onChange: (url: string) => void }) {
  const t = useT();
  const inputId = useId();
  const [progress, setProgress] = useState<number | null>(null);
  const [failed, setFailed] = useState(false);

  async function onFile(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setFailed(false);
    setProgress(0);
    try {
      const url = await uploadFile({ api, file, fileName: file.name, category: IMAGE_UPLOAD_CATEGORY, onProgress: (f) => setProgress(f) });
      onChange(url);
    } catch {
      setFailed(true);
    } finally {
      setProgress(null);
    }
  }

  return (
    <div className="avatar-field">
      <Avatar src={value} name={name} size="lg" />
      <div className="avatar-field__controls">
        <span className="field__label">{t('tavern.form.avatar')}</span>
        <input id={inputId} type="file" accept="image/png,image/jpeg,image/webp" className="visually-hidden" onChange={(e) => void onFile(e)} disabled={progress !== null} />
        <label htmlFor={inputId} className="button">
          {t('tavern.form.avatarPick')}
        </label>
        {value !== '' && progress === null && (
          <button type="button" className="button button--link" onClick={() => onChange('')}>
            {t('tavern.form.avatarRemove')}
          </button>
        )}
        {progress !== null && (
          <span className="tavern__note" aria-live="polite">
            <progress max={1} value={progress} /> {t('tavern.form.uploading', { percent: Math.round(progress * 100) })}
          </span>
        )}
        {failed && (
          <span className="tavern__error" role="alert">
            {t('tavern.form.uploadFailed')}
          </span>
        )}
      </div>
    </div>
  );
}
