import { useId, useState } from 'react';
import type { ChangeEvent, FormEvent } from 'react';
import { accountAtom } from '../account/atoms';
import { api } from '../app/services';
import { Dialog } from '../generator/Dialog';
import { IMAGE_UPLOAD_CATEGORY, uploadFile } from '../generator/upload';
import { useT } from '../i18n/useT';
import { squareApi } from '../square/actions';
import type { Profile } from '../square/types';
import { Avatar } from '../square/WorkCard';
import { appStore } from '../state/jotai';
import { useErrorText } from '../tavern/useErrorText';
import { chars, MAX_BIO_CHARS } from '../works/publish';

/** The longest name (the sign-up rule: 1 to 50 characters). */
export const MAX_NAME_CHARS = 50;

/** Own profile: name, bio and avatar (an uploaded picture, or none). */
export function EditProfileDialog({ profile, onClose, onSaved }: { profile: Profile; onClose: () => void; onSaved: (p: Profile) => void }) {
  const t = useT();
  const errorText = useErrorText();
  const ids = { name: useId(), bio: useId(), avatar: useId() };
  const [name, setName] = useState(profile.name);
  const [bio, setBio] = useState(profile.bio);
  const [avatar, setAvatar] = useState<string>(profile.avatar ?? '');
  const [progress, setProgress] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const nameLen = chars(name.trim());
  const bioLen = chars(bio.trim());
  const invalid = nameLen === 0 || nameLen > MAX_NAME_CHARS || bioLen > MAX_BIO_CHARS;

  async function pick(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    if (!file.type.startsWith('image/')) {
      setError(t('profile.avatarNotImage'));
      return;
    }
    setError(null);
    setProgress(0);
    try {
      setAvatar(await uploadFile({ api, file, fileName: file.name, category: IMAGE_UPLOAD_CATEGORY, onProgress: setProgress }));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setProgress(null);
    }
  }

  async function save(e: FormEvent) {
    e.preventDefault();
    if (invalid || busy) return;
    setBusy(true);
    setError(null);
    try {
      const saved = await squareApi.editProfile({ name: name.trim(), bio: bio.trim(), avatar });
      const acc = appStore.get(accountAtom);
      if (acc && acc.id === saved.id) appStore.set(accountAtom, { ...acc, name: saved.name });
      onSaved(saved);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  }

  return (
    <Dialog title={t('profile.editTitle')} closeLabel={t('tavern.dialog.close')} onClose={onClose} className="work-dialog">
      <form className="work-form" onSubmit={(e) => void save(e)} data-testid="profile-form">
        <div className="profile-form__avatar">
          <Avatar name={name} url={avatar || null} size={72} />
          <label htmlFor={ids.avatar} className="button button--small">
            {t('profile.avatarUpload')}
          </label>
          <input id={ids.avatar} type="file" accept="image/png,image/jpeg,image/webp" className="visually-hidden" onChange={(e) => void pick(e)} />
          {avatar !== '' && (
            <button type="button" className="button button--link" onClick={() => setAvatar('')}>
              {t('profile.avatarRemove')}
            </button>
          )}
          {progress !== null && <progress max={1} value={progress} aria-label={t('profile.avatarUploading')} />}
        </div>
        <div className="field">
          <label htmlFor={ids.name}>{t('profile.name')}</label>
          <input id={ids.name} value={name} onChange={(e) => setName(e.target.value)} aria-invalid={nameLen === 0 || nameLen > MAX_NAME_CHARS} />
          {(nameLen === 0 || nameLen > MAX_NAME_CHARS) && (
            <span className="sq-error" role="alert">
              {t('NameInvalid')}
            </span>
          )}
        </div>
        <div className="field">
          <label htmlFor={ids.bio}>{t('profile.bio')}</label>
          <textarea id={ids.bio} rows={4} value={bio} onChange={(e) => setBio(e.target.value)} aria-invalid={bioLen > MAX_BIO_CHARS} />
          <span className={`muted work-form__count${bioLen > MAX_BIO_CHARS ? ' sq-error' : ''}`}>
            {bioLen}/{MAX_BIO_CHARS}
          </span>
        </div>
        {error !== null && (
          <p className="sq-error" role="alert">
            {error}
          </p>
        )}
        <div className="tavern-dialog__buttons">
          <button type="button" className="button" onClick={onClose}>
            {t('tavern.form.cancel')}
          </button>
          <button type="submit" className="button button--primary" disabled={busy || invalid || progress !== null}>
            {t('works.save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
