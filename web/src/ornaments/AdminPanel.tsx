// The operators' part of the shop (accounts in EASEL_ADMINS): every
// ornament, retired ones too, and a form that adds or edits one, its
// transparent picture uploaded by the pre-signed flow.
import { useState } from 'react';
import type { ChangeEvent, FormEvent } from 'react';
import { api } from '../app/services';
import { IMAGE_UPLOAD_CATEGORY, uploadFile } from '../generator/upload';
import { useT } from '../i18n/useT';
import { useErrorText } from '../tavern/useErrorText';
import { useLoaded } from '../tavern/useLoaded';
import { ornamentApi } from './actions';
import type { Ornament, OrnamentDraft, Slot } from './types';

const EMPTY: OrnamentDraft = { ornament_id: null, slot: 'avatar', name: '', description: '', price: 100, image: { url: '' }, active: true, sort: 0, limited: null };

/** The form's draft of an existing ornament. */
export function draftOf(o: Ornament): OrnamentDraft {
  return { ornament_id: o.ornament_id, slot: o.slot, name: o.name, description: o.description, price: o.price, image: o.image, active: o.active, sort: o.sort, limited: o.limited ?? null };
}

export function AdminPanel({ onSaved, upload = (file: File) => uploadFile({ api, file, fileName: file.name, category: IMAGE_UPLOAD_CATEGORY }) }: { onSaved: () => void; upload?: (file: File) => Promise<string> }) {
  const t = useT();
  const errorText = useErrorText();
  const all = useLoaded(() => ornamentApi.adminList(), [], [] as Ornament[]);
  const [draft, setDraft] = useState<OrnamentDraft>(EMPTY);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const set = (change: Partial<OrnamentDraft>) => setDraft((d) => ({ ...d, ...change }));

  async function onFile(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      set({ image: { url: await upload(file) } });
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  async function save(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const saved = await ornamentApi.adminUpsert(draft);
      all.setValue((list) => [...list.filter((o) => o.ornament_id !== saved.ornament_id), saved]);
      setDraft(EMPTY);
      onSaved();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  const editing = draft.ornament_id !== null && draft.ornament_id !== undefined;
  return (
    <section className="orn-admin" data-testid="ornament-admin" aria-label={t('ornaments.admin.title')}>
      <h2>{t('ornaments.admin.title')}</h2>
      <ul className="orn-orders">
        {all.value.map((o) => (
          <li key={o.ornament_id} data-testid="admin-ornament">
            <img src={o.image.url} alt="" />
            <span>{o.name}</span>
            <span className="muted">
              {t(o.slot === 'avatar' ? 'ornaments.tab.avatar' : 'ornaments.tab.frame')} · {t('ornaments.price', { price: o.price })} · {t('ornaments.admin.sold', { n: o.sold })}
              {!o.active && ` · ${t('ornaments.admin.retired')}`}
            </span>
            <button type="button" className="button button--small" onClick={() => setDraft(draftOf(o))}>
              {t('ornaments.admin.edit')}
            </button>
          </li>
        ))}
      </ul>
      <form className="orn-admin__form" onSubmit={(e) => void save(e)}>
        <label>
          {t('ornaments.admin.slot')}
          <select value={draft.slot} disabled={editing} onChange={(e) => set({ slot: e.target.value as Slot })}>
            <option value="avatar">{t('ornaments.tab.avatar')}</option>
            <option value="work_frame">{t('ornaments.tab.frame')}</option>
          </select>
        </label>
        <label>
          {t('ornaments.admin.name')}
          <input value={draft.name} maxLength={50} required onChange={(e) => set({ name: e.target.value })} />
        </label>
        <label>
          {t('ornaments.admin.description')}
          <textarea value={draft.description} maxLength={500} onChange={(e) => set({ description: e.target.value })} />
        </label>
        <label>
          {t('ornaments.admin.price')}
          <input type="number" min={0} step={1} value={draft.price} onChange={(e) => set({ price: Math.max(0, Math.trunc(Number(e.target.value) || 0)) })} />
        </label>
        <label>
          {t('ornaments.admin.sort')}
          <input type="number" step={1} value={draft.sort} onChange={(e) => set({ sort: Math.trunc(Number(e.target.value) || 0) })} />
        </label>
        <label>
          {t('ornaments.admin.limited')}
          <input
            type="number"
            min={0}
            step={1}
            value={draft.limited ?? ''}
            placeholder={t('ornaments.admin.unlimited')}
            onChange={(e) => set({ limited: e.target.value === '' ? null : Math.max(0, Math.trunc(Number(e.target.value) || 0)) })}
          />
        </label>
        <label>
          <input type="checkbox" checked={draft.active} onChange={(e) => set({ active: e.target.checked })} /> {t('ornaments.admin.active')}
        </label>
        <label>
          {t('ornaments.admin.picture')}
          <input type="file" accept="image/png,image/webp" onChange={(e) => void onFile(e)} data-testid="ornament-file" />
        </label>
        {draft.image.url !== '' && <img className="orn-admin__picture" src={draft.image.url} alt="" width={64} height={64} />}
        {error !== null && (
          <p role="alert" className="tavern__error">
            {error}
          </p>
        )}
        <div>
          {editing && (
            <button type="button" className="button" onClick={() => setDraft(EMPTY)}>
              {t('ornaments.admin.new')}
            </button>
          )}{' '}
          <button type="submit" className="button button--primary" disabled={busy || draft.image.url === '' || draft.name.trim() === ''}>
            {t(editing ? 'ornaments.admin.save' : 'ornaments.admin.add')}
          </button>
        </div>
      </form>
    </section>
  );
}
