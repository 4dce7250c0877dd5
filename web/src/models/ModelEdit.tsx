// The owner's edit form on a model's page: the model's name, description,
// tags, fee, downloads and mature flag (`model/edit`), and the shown
// version's name, trigger words and description (`model/ver/edit`).
import { useId, useState } from 'react';
import { api } from '../app/services';
import { useT } from '../i18n/useT';
import { MODEL_PATHS, modelDetail } from './api';
import type { ModelView, VersionView } from './api';
import { splitList } from './format';
import { ErrorLine } from './ui';
import { MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS } from './wizard';

export function ModelEdit({ model, version, onSaved, onClose }: { model: ModelView; version: VersionView | undefined; onSaved: (m: ModelView) => void; onClose: () => void }) {
  const t = useT();
  const ids = { name: useId(), desc: useId(), tags: useId(), fee: useId(), ver: useId(), words: useId() };
  const [f, setF] = useState({
    name: model.name,
    description: model.description,
    tags: model.tags.join(', '),
    is_agency_fee: model.is_agency_fee,
    agency_fee: model.agency_fee > 0 ? model.agency_fee : 1,
    allow_download: model.allow_download,
    nsfw: model.nsfw,
    version_name: version?.version_name ?? '',
    trained_words: (version?.trained_words ?? []).join(', '),
  });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const set = (p: Partial<typeof f>) => setF((now) => ({ ...now, ...p }));

  async function save() {
    setBusy(true);
    setError(null);
    try {
      await api.post<unknown>(MODEL_PATHS.edit, {
        model_id: model.model_id,
        name: f.name.trim(),
        description: f.description,
        tags: splitList(f.tags),
        is_agency_fee: f.is_agency_fee,
        agency_fee: f.is_agency_fee ? f.agency_fee : 0,
        allow_download: f.allow_download,
        nsfw: f.nsfw,
      });
      if (version) await api.post<unknown>(MODEL_PATHS.verEdit, { model_ver_no: version.model_ver_no, version_name: f.version_name.trim(), trained_words: splitList(f.trained_words) });
      onSaved(await modelDetail(api, model.model_id));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      className="panel models-form"
      data-testid="model-edit"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <div className="field">
        <label htmlFor={ids.name}>{t('models.form.name')}</label>
        <input id={ids.name} value={f.name} maxLength={MAX_NAME_CHARS} required onChange={(e) => set({ name: e.target.value })} />
      </div>
      <div className="field">
        <label htmlFor={ids.desc}>{t('models.form.description')}</label>
        <textarea id={ids.desc} rows={4} maxLength={MAX_DESCRIPTION_CHARS} value={f.description} onChange={(e) => set({ description: e.target.value })} />
      </div>
      <div className="field">
        <label htmlFor={ids.tags}>{t('models.form.tags')}</label>
        <input id={ids.tags} value={f.tags} placeholder={t('models.form.commaList')} onChange={(e) => set({ tags: e.target.value })} />
      </div>
      <label className="models-check">
        <input type="checkbox" checked={f.is_agency_fee} onChange={(e) => set({ is_agency_fee: e.target.checked })} /> {t('models.form.feeOn')}
      </label>
      {f.is_agency_fee && (
        <div className="field">
          <label htmlFor={ids.fee}>{t('models.form.fee')}</label>
          <input id={ids.fee} type="number" min={1} step={1} value={f.agency_fee} onChange={(e) => set({ agency_fee: Math.trunc(Number(e.target.value)) })} />
        </div>
      )}
      <label className="models-check">
        <input type="checkbox" checked={f.allow_download} onChange={(e) => set({ allow_download: e.target.checked })} /> {t('models.form.allowDownload')}
      </label>
      <label className="models-check">
        <input type="checkbox" checked={f.nsfw} onChange={(e) => set({ nsfw: e.target.checked })} /> {t('models.form.nsfw')}
      </label>
      {version && (
        <>
          <div className="field">
            <label htmlFor={ids.ver}>{t('models.form.versionName')}</label>
            <input id={ids.ver} value={f.version_name} maxLength={40} onChange={(e) => set({ version_name: e.target.value })} />
          </div>
          <div className="field">
            <label htmlFor={ids.words}>{t('models.triggerWords')}</label>
            <input id={ids.words} value={f.trained_words} placeholder={t('models.form.commaList')} onChange={(e) => set({ trained_words: e.target.value })} />
          </div>
        </>
      )}
      <ErrorLine error={error} />
      <div className="models-actions">
        <button type="button" className="button" onClick={onClose}>
          {t('models.cancel')}
        </button>
        <button type="submit" className="button button--primary" disabled={busy}>
          {t('models.save')}
        </button>
      </div>
    </form>
  );
}
