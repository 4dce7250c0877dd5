import { useId } from 'react';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { uploadsAtom } from './atoms';
import type { ImageInput } from './config';
import { IMAGE_UPLOAD_CATEGORY, imageSize } from './upload';
import { useUpload } from './useUpload';

interface Props {
  /** Upload slot (`{mode}:{tab}:{name}`). */
  slot: string;
  label: string;
  value: ImageInput | null;
  onChange: (image: ImageInput | null) => void;
}

const ACCEPT = 'image/png,image/jpeg,image/webp,image/gif';

/** An image input: pick a file, upload it by the pre-signed flow with progress, show it. */
export function ImageField({ slot, label, value, onChange }: Props) {
  const t = useT();
  const id = useId();
  const upload = useUpload();
  const state = useAtomValue(uploadsAtom)[slot];

  async function onFile(file: File | undefined) {
    if (!file) return;
    let size: { width: number; height: number };
    try {
      size = await imageSize(file);
    } catch {
      onChange(null);
      return;
    }
    const url = await upload(slot, file, file.name, IMAGE_UPLOAD_CATEGORY);
    onChange(url === null ? null : { url, name: file.name, ...size });
  }

  const uploading = state !== undefined && !state.failed;
  return (
    <div className="field gen-image" data-slot={slot}>
      <label htmlFor={id}>{label}</label>
      <div className="gen-image__box">
        {value ? (
          <img className="gen-image__preview" src={value.url} alt={t('gen.image.alt', { name: value.name })} />
        ) : (
          <span className="gen-image__empty muted">{t('gen.image.none')}</span>
        )}
        <div className="gen-image__side">
          <input
            id={id}
            type="file"
            accept={ACCEPT}
            disabled={uploading}
            onChange={(e) => void onFile(e.currentTarget.files?.[0])}
          />
          {value && (
            <span className="muted gen-image__meta">
              {value.width} × {value.height}
            </span>
          )}
          {value && !uploading && (
            <button type="button" className="button button--link" onClick={() => onChange(null)}>
              {t('gen.image.remove')}
            </button>
          )}
        </div>
      </div>
      {uploading && (
        <div className="gen-progress">
          <progress max={100} value={Math.round(state.fraction * 100)} aria-label={t('gen.image.uploading')} />
          <span className="muted">{t('gen.image.progress', { percent: Math.round(state.fraction * 100) })}</span>
        </div>
      )}
      {state?.failed && (
        <p className="form-error" role="alert">
          {t('uploadError')}
        </p>
      )}
    </div>
  );
}
