// The dataset manager (issue 19 item 4, 6): my datasets, a new one (kind
// from the templates with their caption conventions), and one dataset: add
// pictures with upload progress, edit each caption, draft captions
// automatically (the server's descriptor or language model), remove
// pictures, delete the dataset, train a LoRA from it.
import { useCallback, useEffect, useId, useState } from 'react';
import { Link } from '../app/Link';
import { api } from '../app/services';
import { uploadFileWithId } from '../generator/upload';
import { useT } from '../i18n/useT';
import { navigate } from '../router/router';
import { appStore } from '../state/jotai';
import { ConfirmDialog } from '../tavern/ConfirmDialog';
import { splitList } from './format';
import { DATASET_KINDS, datasets, MAX_CAPTION_CHARS, MAX_DATASET_IMAGES } from './training';
import type { Dataset, DatasetImage, DatasetKind, DatasetTemplate } from './training';
import { ErrorLine, useModelsHref } from './ui';

function useTemplates(): DatasetTemplate[] {
  const [list, setList] = useState<DatasetTemplate[]>([]);
  useEffect(() => {
    let live = true;
    datasets.templates(api).then((l) => live && setList(l), () => {});
    return () => {
      live = false;
    };
  }, []);
  return list;
}

function NewDataset() {
  const t = useT();
  const href = useModelsHref();
  const templates = useTemplates();
  const ids = { name: useId(), kind: useId(), tags: useId() };
  const [name, setName] = useState('');
  const [kind, setKind] = useState<DatasetKind>('style');
  const [tags, setTags] = useState('');
  const [error, setError] = useState<unknown>(null);
  const template = templates.find((x) => x.kind === kind);
  return (
    <form
      className="panel models-form"
      data-testid="dataset-new"
      onSubmit={(e) => {
        e.preventDefault();
        datasets.create(api, { name: name.trim(), kind, tags: splitList(tags) }).then(
          (d) => navigate(appStore, href({ view: 'dataset', id: d.dataset_id })),
          setError,
        );
      }}
    >
      <h2>{t('models.datasets.new')}</h2>
      <div className="field">
        <label htmlFor={ids.name}>{t('models.datasets.name')}</label>
        <input id={ids.name} value={name} maxLength={80} required onChange={(e) => setName(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={ids.kind}>{t('models.datasets.kind')}</label>
        <select id={ids.kind} value={kind} onChange={(e) => setKind(e.target.value as DatasetKind)}>
          {DATASET_KINDS.map((k) => (
            <option key={k} value={k}>
              {t(`models.datasets.kind.${k}`)}
            </option>
          ))}
        </select>
      </div>
      {template && (
        <p className="muted">
          {template.caption_convention} <em>{template.example_caption}</em>
        </p>
      )}
      <div className="field">
        <label htmlFor={ids.tags}>{t('models.form.tags')}</label>
        <input id={ids.tags} value={tags} placeholder={t('models.form.commaList')} onChange={(e) => setTags(e.target.value)} />
      </div>
      <ErrorLine error={error} />
      <button type="submit" className="button button--primary">
        {t('models.datasets.create')}
      </button>
    </form>
  );
}

export function DatasetList() {
  const t = useT();
  const href = useModelsHref();
  const [list, setList] = useState<Dataset[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    datasets.list(api).then(setList, setError);
  }, []);
  return (
    <div className="models-datasets" data-testid="datasets">
      <NewDataset />
      <ErrorLine error={error} />
      {list !== null && list.length === 0 && <p className="muted">{t('models.datasets.none')}</p>}
      <ul className="models-grid">
        {(list ?? []).map((d) => (
          <li key={d.dataset_id} className="models-card" data-testid="dataset-card">
            <Link to={href({ view: 'dataset', id: d.dataset_id })} className="models-card__link">
              {d.cover ? <img src={d.cover} alt="" className="models-card__cover" /> : <div className="models-card__cover models-card__cover--none" aria-hidden="true" />}
              <span className="models-card__title">{d.name}</span>
            </Link>
            <span className="muted models-card__meta">
              {t(`models.datasets.kind.${d.kind}`)} · {t('models.datasets.images', { n: d.image_count })}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function CaptionEditor({ ds, img, onSaved, onRemove }: { ds: Dataset; img: DatasetImage; onSaved: (d: Dataset) => void; onRemove: () => void }) {
  const t = useT();
  const [text, setText] = useState(img.caption);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const dirty = text !== img.caption;
  return (
    <li className="models-dsimg" data-testid="dataset-image" data-id={img.image_id}>
      <img src={img.url} alt="" loading="lazy" />
      <label className="visually-hidden" htmlFor={`cap-${img.image_id}`}>
        {t('models.datasets.caption')}
      </label>
      <textarea
        id={`cap-${img.image_id}`}
        rows={3}
        maxLength={MAX_CAPTION_CHARS}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setSaved(false);
        }}
        data-testid="dataset-caption"
      />
      <span className="muted models-dsimg__source">{t(`models.datasets.source.${img.caption_source}`)}</span>
      <div className="models-actions">
        <button
          type="button"
          className="button button--small"
          disabled={!dirty}
          onClick={() =>
            datasets.caption(api, ds.dataset_id, img.image_id, text).then(
              () => {
                setSaved(true);
                setError(null);
                onSaved({ ...ds, images: ds.images.map((x) => (x.image_id === img.image_id ? { ...x, caption: text, caption_source: 'user' } : x)) });
              },
              setError,
            )
          }
        >
          {saved ? t('models.saved') : t('models.save')}
        </button>
        <button type="button" className="button button--small" onClick={onRemove}>
          {t('models.remove')}
        </button>
      </div>
      <ErrorLine error={error} />
    </li>
  );
}

export function DatasetDetail({ id }: { id: string }) {
  const t = useT();
  const href = useModelsHref();
  const fileId = useId();
  const [ds, setDs] = useState<Dataset | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [upload, setUpload] = useState<{ done: number; of: number; fraction: number } | null>(null);
  const [captioning, setCaptioning] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const reload = useCallback(() => datasets.detail(api, id).then(setDs, setError), [id]);
  useEffect(() => {
    void reload();
  }, [reload]);

  async function add(files: File[]) {
    if (!ds) return;
    const room = MAX_DATASET_IMAGES - ds.images.length;
    const take = files.slice(0, Math.max(0, room));
    setError(null);
    const urls: string[] = [];
    try {
      for (const [i, file] of take.entries()) {
        setUpload({ done: i, of: take.length, fraction: 0 });
        const up = await uploadFileWithId({ api, file, fileName: file.name, category: 1, onProgress: (fraction) => setUpload({ done: i, of: take.length, fraction }) });
        urls.push(up.url);
      }
      setDs(await datasets.addImages(api, ds.dataset_id, urls));
    } catch (e) {
      setError(e);
    } finally {
      setUpload(null);
    }
  }

  async function autoCaption() {
    if (!ds) return;
    setCaptioning(true);
    setError(null);
    try {
      await datasets.autoCaption(api, ds.dataset_id, null);
      await reload();
    } catch (e) {
      setError(e);
    } finally {
      setCaptioning(false);
    }
  }

  if (ds === null) return error ? <ErrorLine error={error} /> : <p className="muted">{t('models.loading')}</p>;
  const overall = upload ? Math.round(((upload.done + upload.fraction) / Math.max(1, upload.of)) * 100) : 0;
  return (
    <div className="models-dataset" data-testid="dataset-detail">
      <h1>{ds.name}</h1>
      <p className="muted">
        {t(`models.datasets.kind.${ds.kind}`)} · {t('models.datasets.images', { n: ds.images.length })}
        {ds.tags.length > 0 && ` · ${ds.tags.map((g) => `#${g}`).join(' ')}`}
      </p>
      <div className="models-actions">
        <label htmlFor={fileId} className="button">
          {t('models.datasets.add')}
        </label>
        <input id={fileId} className="visually-hidden" type="file" accept="image/png,image/jpeg,image/webp" multiple onChange={(e) => e.target.files && void add(Array.from(e.target.files))} data-testid="dataset-files" />
        <button type="button" className="button" disabled={captioning || ds.images.length === 0} onClick={() => void autoCaption()} data-testid="dataset-autocaption">
          {captioning ? t('models.datasets.captioning') : t('models.datasets.autoCaption')}
        </button>
        <Link to={href({ view: 'train' }, `?dataset_id=${encodeURIComponent(ds.dataset_id)}`)} className="button button--primary">
          {t('models.datasets.train')}
        </Link>
        <button type="button" className="button" onClick={() => setConfirmDelete(true)}>
          {t('models.delete')}
        </button>
      </div>
      {upload && (
        <p aria-live="polite">
          <progress max={100} value={overall} data-testid="dataset-progress" /> {t('models.datasets.uploading', { n: upload.done + 1, of: upload.of, pct: overall })}
        </p>
      )}
      <ErrorLine error={error} />
      <ul className="models-dsgrid">
        {ds.images.map((img) => (
          <CaptionEditor
            key={`${img.image_id}:${img.caption}`}
            ds={ds}
            img={img}
            onSaved={setDs}
            onRemove={() => datasets.removeImage(api, ds.dataset_id, img.image_id).then(() => setDs({ ...ds, images: ds.images.filter((x) => x.image_id !== img.image_id) }), setError)}
          />
        ))}
      </ul>
      {confirmDelete && (
        <ConfirmDialog
          title={t('models.datasets.deleteTitle')}
          message={t('models.deleteConfirm', { name: ds.name })}
          confirmLabel={t('models.delete')}
          variant="danger"
          onCancel={() => setConfirmDelete(false)}
          onConfirm={() => datasets.remove(api, ds.dataset_id).then(() => navigate(appStore, href({ view: 'datasets' })), setError)}
        />
      )}
    </div>
  );
}
