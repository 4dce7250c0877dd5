// Profile tab: name, bio, links (http(s), at most 5), language, and the
// avatar: the chosen image is shown with a square frame the person moves
// and zooms; the server crops that square and resizes it to 256 px.
import { useEffect, useId, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { accountAtom } from '../account/atoms';
import { FormError } from '../account/FormError';
import { errorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { LOCALES } from '../router/locale';
import { appStore, useAtomValue } from '../state/jotai';
import type { OwnProfile } from './api';
import { security } from './useSecurityApi';

const PREVIEW = 160;

/** The square (in the image's pixels) that a zoom and a centre pick. */
export function cropSquare(w: number, h: number, zoom: number, cx: number, cy: number): { x: number; y: number; size: number } {
  const size = Math.max(1, Math.floor(Math.min(w, h) / Math.max(1, zoom)));
  const x = Math.min(Math.max(0, Math.round(cx * w - size / 2)), w - size);
  const y = Math.min(Math.max(0, Math.round(cy * h - size / 2)), h - size);
  return { x, y, size };
}

function AvatarCrop({ onSaved }: { onSaved: (p: OwnProfile) => void }) {
  const t = useT();
  const canvas = useRef<HTMLCanvasElement>(null);
  const [img, setImg] = useState<HTMLImageElement | null>(null);
  const [data, setData] = useState<string | null>(null);
  const [zoom, setZoom] = useState(1);
  const [cx, setCx] = useState(0.5);
  const [cy, setCy] = useState(0.5);
  const [error, setError] = useState<ErrorMessage | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const c = canvas.current?.getContext('2d');
    if (!img || !c) return;
    const { x, y, size } = cropSquare(img.naturalWidth, img.naturalHeight, zoom, cx, cy);
    c.clearRect(0, 0, PREVIEW, PREVIEW);
    c.drawImage(img, x, y, size, size, 0, 0, PREVIEW, PREVIEW);
  }, [img, zoom, cx, cy]);

  function pick(file: File | undefined) {
    setError(null);
    if (!file) return;
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      const image = new Image();
      image.onload = () => {
        setImg(image);
        setData(url.slice(url.indexOf(',') + 1));
        setZoom(1);
        setCx(0.5);
        setCy(0.5);
      };
      image.onerror = () => setError({ key: 'avatarInvalid' });
      image.src = url;
    };
    reader.readAsDataURL(file);
  }

  async function save() {
    if (!img || !data) return;
    setBusy(true);
    setError(null);
    try {
      onSaved(await security.avatar(data, cropSquare(img.naturalWidth, img.naturalHeight, zoom, cx, cy)));
      setImg(null);
      setData(null);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="settings-crop">
      <label className="button">
        {t('settings.profile.chooseAvatar')}
        <input type="file" accept="image/png,image/jpeg,image/gif" hidden data-testid="avatar-file" onChange={(e) => pick(e.target.files?.[0])} />
      </label>
      {img && (
        <>
          <canvas ref={canvas} width={PREVIEW} height={PREVIEW} data-testid="avatar-preview" />
          <div className="form">
            <label>
              {t('settings.profile.zoom')}
              <input type="range" min={1} max={4} step={0.05} value={zoom} onChange={(e) => setZoom(Number(e.target.value))} />
            </label>
            <label>
              {t('settings.profile.horizontal')}
              <input type="range" min={0} max={1} step={0.01} value={cx} onChange={(e) => setCx(Number(e.target.value))} />
            </label>
            <label>
              {t('settings.profile.vertical')}
              <input type="range" min={0} max={1} step={0.01} value={cy} onChange={(e) => setCy(Number(e.target.value))} />
            </label>
            <button type="button" className="button button--primary" disabled={busy} data-testid="avatar-save" onClick={() => void save()}>
              {t('settings.profile.saveAvatar')}
            </button>
          </div>
        </>
      )}
      <FormError error={error} />
    </div>
  );
}

export function ProfileSection() {
  const t = useT();
  const id = useId();
  const account = useAtomValue(accountAtom);
  const [profile, setProfile] = useState<OwnProfile | null>(null);
  const [name, setName] = useState('');
  const [bio, setBio] = useState('');
  const [links, setLinks] = useState('');
  const [language, setLanguage] = useState('');
  const [error, setError] = useState<ErrorMessage | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!account) return;
    Promise.all([security.profile(account.id), security.prefs()]).then(
      ([p, prefs]) => {
        setProfile(p);
        setName(p.name);
        setBio(p.bio);
        setLinks(prefs.links.join('\n'));
        setLanguage(prefs.language);
      },
      (e: unknown) => setError(errorMessage(e)),
    );
  }, [account]);

  async function save(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      const p = await security.editProfile({ name: name.trim(), bio });
      const list = links
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '');
      await security.updatePrefs({ links: list, language });
      setProfile(p);
      const current = appStore.get(accountAtom);
      if (current) appStore.set(accountAtom, { ...current, name: p.name });
      setSaved(true);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  if (profile === null) return error ? <FormError error={error} /> : <p className="muted">{t('settings.loading')}</p>;
  return (
    <>
      <div className="settings-row">
        {profile.avatar ? (
          <img className="settings-avatar" src={profile.avatar} alt="" data-testid="avatar-current" />
        ) : (
          <span className="avatar" aria-hidden="true">
            {profile.name.charAt(0).toUpperCase() || '?'}
          </span>
        )}
        <AvatarCrop onSaved={setProfile} />
      </div>
      <form className="form" onSubmit={(e) => void save(e)}>
        <div className="field">
          <label htmlFor={`${id}-name`}>{t('login.name')}</label>
          <input id={`${id}-name`} value={name} maxLength={50} onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-bio`}>{t('settings.profile.bio')}</label>
          <textarea id={`${id}-bio`} value={bio} maxLength={500} rows={3} onChange={(e) => setBio(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-links`}>{t('settings.profile.links')}</label>
          <textarea id={`${id}-links`} value={links} rows={3} placeholder="https://" onChange={(e) => setLinks(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-lang`}>{t('settings.profile.language')}</label>
          <select id={`${id}-lang`} value={language} onChange={(e) => setLanguage(e.target.value)}>
            <option value="">{t('settings.profile.languageAuto')}</option>
            {LOCALES.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </div>
        <FormError error={error} />
        {saved && <p role="status">{t('settings.saved')}</p>}
        <button type="submit" className="button button--primary" disabled={busy} data-testid="profile-save">
          {t('settings.save')}
        </button>
      </form>
    </>
  );
}
