// The upload wizard (issue 19 item 6): choose a .safetensors file, upload it
// with a progress bar, see what the server read from it (type, family, rank,
// trigger words, hashes), fill in the details (prefilled from the file), add
// example pictures, then save a draft or publish. `?model_id=` adds a new
// version to an own model.
import { useEffect, useId, useRef, useState } from 'react';
import { Link } from '../app/Link';
import { api } from '../app/services';
import { uploadFileWithId } from '../generator/upload';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, locationAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { commitModel, createModel, MODEL_TYPES, modelDetail, publishModel } from './api';
import type { ConfirmedModelFile, ModelType } from './api';
import { formatBytes, groupHash } from './format';
import { generatorPathFor } from './picker';
import { percent, uploadModelFile } from './upload';
import { commitBody, createBody, edit, failed, fileProblem, finished, formProblem, forVersionOf, initialWizard, versionCommitBody, MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS, progressed, saving, startUpload, uploaded } from './wizard';
import type { WizardForm, WizardState } from './wizard';
import { ErrorLine, familyName, useFamilies, useModelsHref } from './ui';

function Detected({ file }: { file: ConfirmedModelFile }) {
  const t = useT();
  const families = useFamilies();
  return (
    <section className="panel" data-testid="wizard-detected" aria-label={t('models.wizard.detected')}>
      <h2>{t('models.wizard.detected')}</h2>
      <dl className="models-facts">
        <dt>{t('models.type')}</dt>
        <dd data-testid="wizard-detected-type">{file.detected_type ? t(`models.type.${file.detected_type}`) : t('models.unknown')}</dd>
        <dt>{t('models.base')}</dt>
        <dd data-testid="wizard-detected-family" data-family={file.detected_family ?? ''}>
          {file.detected_family ? familyName(families, file.detected_family) : t('models.unknown')}
        </dd>
        {file.rank ? (
          <>
            <dt>{t('models.rankLabel')}</dt>
            <dd>{file.rank}</dd>
          </>
        ) : null}
        <dt>{t('models.size')}</dt>
        <dd>{formatBytes(file.size)}</dd>
        <dt>SHA-256</dt>
        <dd>
          <code data-testid="wizard-sha256">{groupHash(file.sha256)}</code>
        </dd>
        <dt>AutoV2</dt>
        <dd>
          <code data-testid="wizard-autov2">{file.autov2}</code>
        </dd>
        {(file.trained_words ?? []).length > 0 && (
          <>
            <dt>{t('models.triggerWords')}</dt>
            <dd>{(file.trained_words ?? []).join(', ')}</dd>
          </>
        )}
      </dl>
    </section>
  );
}

function DetailsForm({ s, set, addingVersion, images, onImages, onSave }: { s: WizardState; set: (p: Partial<WizardForm>) => void; addingVersion: boolean; images: string[]; onImages: (files: FileList) => void; onSave: (publish: boolean) => void }) {
  const t = useT();
  const families = useFamilies();
  const ids = { name: useId(), type: useId(), base: useId(), ver: useId(), desc: useId(), tags: useId(), words: useId(), fee: useId(), images: useId() };
  const f = s.form;
  const busy = s.at.step === 'saving';
  return (
    <form
      className="panel models-form"
      data-testid="wizard-form"
      onSubmit={(e) => {
        e.preventDefault();
        onSave(true);
      }}
    >
      {!addingVersion && (
        <div className="field">
          <label htmlFor={ids.name}>{t('models.form.name')}</label>
          <input id={ids.name} value={f.name} maxLength={MAX_NAME_CHARS} onChange={(e) => set({ name: e.target.value })} required />
        </div>
      )}
      <div className="field">
        <label htmlFor={ids.type}>{t('models.type')}</label>
        <select id={ids.type} value={f.model_type} onChange={(e) => set({ model_type: e.target.value as ModelType })}>
          {MODEL_TYPES.map((m) => (
            <option key={m} value={m}>
              {t(`models.type.${m}`)}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.base}>{t('models.base')}</label>
        <select id={ids.base} value={f.base_model} onChange={(e) => set({ base_model: e.target.value })}>
          <option value="">{t('models.form.chooseBase')}</option>
          {families.map((fam) => (
            <option key={fam.id} value={fam.id}>
              {fam.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.ver}>{t('models.form.versionName')}</label>
        <input id={ids.ver} value={f.version_name} onChange={(e) => set({ version_name: e.target.value })} />
      </div>
      <div className="field">
        <label htmlFor={ids.desc}>{t('models.form.description')}</label>
        <textarea id={ids.desc} rows={4} value={f.description} maxLength={MAX_DESCRIPTION_CHARS} onChange={(e) => set({ description: e.target.value })} />
      </div>
      <div className="field">
        <label htmlFor={ids.words}>{t('models.triggerWords')}</label>
        <input id={ids.words} value={f.trained_words} placeholder={t('models.form.commaList')} onChange={(e) => set({ trained_words: e.target.value })} />
      </div>
      {!addingVersion && (
      <div className="field">
        <label htmlFor={ids.tags}>{t('models.form.tags')}</label>
        <input id={ids.tags} value={f.tags} placeholder={t('models.form.commaList')} onChange={(e) => set({ tags: e.target.value })} />
      </div>
      )}
      <div className="field">
        <label htmlFor={ids.images}>{t('models.form.images')}</label>
        <input id={ids.images} type="file" accept="image/png,image/jpeg,image/webp" multiple onChange={(e) => e.target.files && onImages(e.target.files)} />
        {images.length > 0 && (
          <ul className="models-gallery models-gallery--small">
            {images.map((src) => (
              <li key={src}>
                <img src={src} alt="" />
              </li>
            ))}
          </ul>
        )}
      </div>
      {!addingVersion && (
        <label className="models-check">
          <input type="checkbox" checked={f.is_agency_fee} onChange={(e) => set({ is_agency_fee: e.target.checked })} data-testid="wizard-fee-on" /> {t('models.form.feeOn')}
        </label>
      )}
      {!addingVersion && f.is_agency_fee && (
        <div className="field">
          <label htmlFor={ids.fee}>{t('models.form.fee')}</label>
          <input id={ids.fee} type="number" min={1} step={1} value={f.agency_fee} onChange={(e) => set({ agency_fee: Math.trunc(Number(e.target.value)) })} />
        </div>
      )}
      {!addingVersion && (
        <>
          <label className="models-check">
            <input type="checkbox" checked={f.allow_download} onChange={(e) => set({ allow_download: e.target.checked })} /> {t('models.form.allowDownload')}
          </label>
          <label className="models-check">
            <input type="checkbox" checked={f.nsfw} onChange={(e) => set({ nsfw: e.target.checked })} /> {t('models.form.nsfw')}
          </label>
        </>
      )}
      <div className="models-actions">
        <button type="button" className="button" disabled={busy} onClick={() => onSave(false)} data-testid="wizard-save">
          {t('models.form.saveDraft')}
        </button>
        <button type="submit" className="button button--primary" disabled={busy} data-testid="wizard-publish">
          {busy ? t(`models.wizard.stage.${s.at.step === 'saving' ? s.at.stage : 'create'}`) : t('models.publish')}
        </button>
      </div>
    </form>
  );
}

export function UploadWizard() {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const href = useModelsHref();
  const location = useAtomValue(locationAtom);
  const addTo = new URLSearchParams(location.search).get('model_id');
  const families = useFamilies();
  const [s, setS] = useState<WizardState>(initialWizard);
  const [images, setImages] = useState<string[]>([]);
  const fileId = useId();
  const abort = useRef<AbortController | null>(null);
  const [err, setErr] = useState<unknown>(null);
  // A new version starts from the model's name, type and family.
  useEffect(() => {
    if (addTo === null) return;
    let live = true;
    modelDetail(api, addTo).then(
      (m) => live && setS((now) => forVersionOf(now, m)),
      (e: unknown) => live && setErr(e),
    );
    return () => {
      live = false;
    };
  }, [addTo]);

  async function choose(file: File) {
    const problem = fileProblem(file.name, file.size, null);
    if (problem) {
      setS((now) => ({ ...now, error: { key: problem } }));
      return;
    }
    abort.current = new AbortController();
    setErr(null);
    setS((now) => startUpload(now, file.name, file.size));
    try {
      const confirmed = await uploadModelFile(file, { api, signal: abort.current.signal, onProgress: (p) => setS((now) => progressed(now, p)) });
      setS((now) => uploaded(now, file.name, confirmed));
    } catch (e) {
      setS((now) => failed(now, null));
      setErr(e);
    }
  }

  async function addImages(files: FileList) {
    try {
      for (const file of Array.from(files)) {
        const up = await uploadFileWithId({ api, file, fileName: file.name, category: 1 });
        setImages((now) => [...now, up.url]);
      }
    } catch (e) {
      setErr(e);
    }
  }

  async function save(publish: boolean) {
    if (s.at.step !== 'details') return;
    const problem = formProblem(s.form, families.map((f) => f.id));
    if (problem) {
      setS((now) => ({ ...now, error: { key: problem } }));
      return;
    }
    const file = s.at.file;
    setErr(null);
    try {
      setS((now) => saving(now, 'create'));
      const body = createBody(s.form, file);
      const created = await createModel(api, addTo ? { ...body, model_id: addTo } : body);
      setS((now) => saving(now, 'commit'));
      await commitModel(api, addTo ? versionCommitBody(s.form, created.model_id, created.model_ver_no, images) : commitBody(s.form, created.model_id, created.model_ver_no, images));
      if (publish) {
        setS((now) => saving(now, 'publish'));
        await publishModel(api, created.model_id, [created.model_ver_no]);
      }
      setS((now) => finished(now, created.model_id, created.model_ver_no, publish));
    } catch (e) {
      setS((now) => failed(now, null));
      setErr(e);
    }
  }

  const at = s.at;
  return (
    <div className="models-wizard" data-testid="model-wizard" data-step={at.step}>
      <h1>{addTo ? t('models.wizard.titleVersion') : t('models.wizard.title')}</h1>
      <ol className="models-steps" aria-label={t('models.wizard.steps')}>
        {(['choose', 'uploading', 'details', 'done'] as const).map((step) => (
          <li key={step} aria-current={at.step === step || (step === 'details' && at.step === 'saving') ? 'step' : undefined}>
            {t(`models.wizard.step.${step}`)}
          </li>
        ))}
      </ol>
      {s.error && <ErrorLine error={'key' in s.error ? { key: s.error.key } : new Error(s.error.text)} testId="wizard-error" />}
      <ErrorLine error={err} testId="wizard-error" />
      {at.step === 'choose' && (
        <section className="panel">
          <label htmlFor={fileId} className="field__label">
            {t('models.wizard.file')}
          </label>
          <input id={fileId} type="file" accept=".safetensors" data-testid="wizard-file" onChange={(e) => e.target.files?.[0] && void choose(e.target.files[0])} />
          <p className="muted">{t('models.wizard.fileHelp')}</p>
        </section>
      )}
      {at.step === 'uploading' && (
        <section className="panel" aria-live="polite">
          <p>{at.fileName}</p>
          <progress max={100} value={percent(at.progress)} data-testid="wizard-progress" data-percent={percent(at.progress)} aria-label={t('models.wizard.progress')} />
          <p className="muted" data-testid="wizard-progress-text">
            {at.progress.phase === 'checking'
              ? t('models.wizard.checking')
              : t('models.wizard.uploading', { pct: percent(at.progress), sent: formatBytes(at.progress.sent), total: formatBytes(at.progress.total) })}
          </p>
          <button type="button" className="button" onClick={() => abort.current?.abort()}>
            {t('models.cancel')}
          </button>
        </section>
      )}
      {(at.step === 'details' || at.step === 'saving') && (
        <>
          <Detected file={at.file} />
          <DetailsForm s={s} set={(p) => setS((now) => edit(now, p))} addingVersion={addTo !== null} images={images} onImages={(fl) => void addImages(fl)} onSave={(p) => void save(p)} />
        </>
      )}
      {at.step === 'done' && (
        <section className="panel" data-testid="wizard-done">
          <p>{at.published ? t('models.wizard.donePublished') : t('models.wizard.doneDraft')}</p>
          <div className="models-actions">
            <Link to={href({ view: 'detail', id: at.modelId })} className="button button--primary" data-testid="wizard-open">
              {t('models.wizard.open')}
            </Link>
            <Link to={localePath(locale, generatorPathFor(at.modelVerNo))} className="button">
              {t('models.use')}
            </Link>
          </div>
        </section>
      )}
    </div>
  );
}
