// A model's page (what a Civitai user expects): versions as tabs, the
// version's file (size, SHA-256, AutoV2) and what the server read from it,
// trigger words with copy buttons, base model, example pictures, "use in
// generator", download when the creator allows it, the creator, the fee and
// the figures; the owner publishes, delists and adds versions. Below: the
// works others made with it ("Made with this model", the square's grid) and
// its comments (the square's comment section on obj_type 2).
import { useCallback, useEffect, useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import { Link } from '../app/Link';
import { api } from '../app/services';
import { showToast } from '../app/toast';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, locationAtom } from '../router/router';
import { appStore, useAtomValue } from '../state/jotai';
import { FeedGrid } from '../square/FeedGrid';
import { Comments } from '../works/Comments';
import { delistModel, MODEL_OBJ_TYPE, modelDetail, modelWorks, publishModel, PublishStatus, react, VersionStatus } from './api';
import type { ModelView, Reaction, VersionView } from './api';
import { formatBytes, groupHash, publishKey, triggerText, versionKey } from './format';
import { ModelEdit } from './ModelEdit';
import { generatorPathFor } from './picker';
import { CopyButton, credits, ErrorLine, familyName, useFamilies, useModelsHref } from './ui';

function FileFacts({ v }: { v: VersionView }) {
  const t = useT();
  const f = v.file;
  if (!f) return <p className="muted">{t('models.noFile')}</p>;
  return (
    <dl className="models-facts" data-testid="model-file">
      <dt>{t('models.file')}</dt>
      <dd>
        {f.name} · <span data-testid="model-file-size">{formatBytes(f.size)}</span> · {f.format}
      </dd>
      <dt>SHA-256</dt>
      <dd className="models-hash">
        <code data-testid="model-sha256" title={f.sha256}>
          {groupHash(f.sha256)}
        </code>
        <CopyButton text={f.sha256} label="SHA-256" />
      </dd>
      <dt>AutoV2</dt>
      <dd className="models-hash">
        <code data-testid="model-autov2">{f.autov2}</code>
        <CopyButton text={f.autov2} label="AutoV2" />
      </dd>
      {f.detected_type && (
        <>
          <dt>{t('models.detected')}</dt>
          <dd data-testid="model-detected">
            {t(`models.type.${f.detected_type}`)}
            {f.detected_family && ` · ${f.detected_family}`}
            {f.rank ? ` · ${t('models.rank', { rank: f.rank })}` : ''}
            {` · ${t('models.tensors', { n: f.tensor_count })}`}
          </dd>
        </>
      )}
    </dl>
  );
}

function Version({ model, v }: { model: ModelView; v: VersionView }) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const families = useFamilies();
  const words = triggerText(v.trained_words);
  const usable = v.status === VersionStatus.Ready && model.model_type !== 'embedding';
  return (
    <section className="panel models-version" data-testid="model-version" data-ver={v.model_ver_no} aria-label={v.version_name}>
      <p className="models-badges">
        <span className="models-badge">{t(`models.type.${v.model_type}`)}</span>
        <span className="models-badge" data-testid="model-base">
          {v.base_model_name || familyName(families, v.base_model)}
        </span>
        <span className="models-badge">{t(versionKey(v.status))}</span>
        {v.source === 'train' && <span className="models-badge">{t('models.trained')}</span>}
      </p>
      {v.status === VersionStatus.Failed && v.status_msg && <p className="form-error">{v.status_msg}</p>}
      <div className="models-actions">
        {usable && (
          <Link to={localePath(locale, generatorPathFor(v.model_ver_no))} className="button button--primary" data-testid="model-use">
            {t('models.use')}
          </Link>
        )}
        {v.file?.download_url && (
          <a className="button" href={v.file.download_url} download={v.file.name} data-testid="model-download">
            {t('models.download', { size: formatBytes(v.file.size) })}
          </a>
        )}
      </div>
      {v.trained_words.length > 0 && (
        <div className="models-words" data-testid="model-words">
          <h3>{t('models.triggerWords')}</h3>
          <ul>
            {v.trained_words.map((w) => (
              <li key={w}>
                <code>{w}</code> <CopyButton text={w} label={w} />
              </li>
            ))}
          </ul>
          {v.trained_words.length > 1 && <CopyButton text={words} label={t('models.triggerWords')} />}
        </div>
      )}
      {v.description && <p className="models-desc">{v.description}</p>}
      <FileFacts v={v} />
      {v.images.length > 0 && (
        <ul className="models-gallery" aria-label={t('models.examples')}>
          {v.images.map((src) => (
            <li key={src}>
              <img src={src} alt="" loading="lazy" />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Like and collect buttons with the live counts (`model/like`, `model/collect`). */
function Reactions({ model }: { model: ModelView }) {
  const t = useT();
  const loggedIn = useAtomValue(loggedInAtom);
  const [state, setState] = useState<Reaction>({ model_id: model.model_id, liked: false, collected: false, likes: model.stats.likes, collects: model.stats.collects });
  const [error, setError] = useState<unknown>(null);
  function toggle(kind: 'like' | 'collect') {
    const on = kind === 'like' ? state.liked : state.collected;
    react(api, kind, model.model_id, on).then((r) => {
      setState(r);
      setError(null);
    }, setError);
  }
  return (
    <div className="models-actions">
      <button type="button" className="button" aria-pressed={state.liked} disabled={!loggedIn} onClick={() => toggle('like')} data-testid="model-like">
        ♥ {t('models.like', { n: state.likes })}
      </button>
      <button type="button" className="button" aria-pressed={state.collected} disabled={!loggedIn} onClick={() => toggle('collect')} data-testid="model-collect">
        ★ {t('models.collect', { n: state.collects })}
      </button>
      <ErrorLine error={error} />
    </div>
  );
}

/** "Made with this model": published works whose tasks used it, as the square's cards. */
function MadeWith({ modelId }: { modelId: string }) {
  const t = useT();
  const load = useCallback((cursor: string | null) => modelWorks(api, modelId, null, cursor), [modelId]);
  return (
    <section className="models-made-with" data-testid="model-works" aria-label={t('models.madeWith')}>
      <h2>{t('models.madeWith')}</h2>
      <FeedGrid load={load} deps={[modelId]} label={t('models.madeWith')} emptyText={t('models.madeWithEmpty')} />
    </section>
  );
}

export function ModelDetail({ id }: { id: string }) {
  const t = useT();
  const href = useModelsHref();
  const locale = useAtomValue(localeAtom);
  const location = useAtomValue(locationAtom);
  const [model, setModel] = useState<ModelView | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState(false);
  const wanted = new URLSearchParams(location.search).get('ver');
  const [tab, setTab] = useState<string | null>(wanted);

  useEffect(() => {
    let live = true;
    modelDetail(api, id)
      .then((m) => live && setModel(m))
      .catch((e: unknown) => live && setError(e));
    return () => {
      live = false;
    };
  }, [id]);

  if (error !== null && model === null) return <ErrorLine error={error} />;
  if (model === null) return <p className="muted">{t('models.loading')}</p>;
  const version = model.versions.find((v) => v.model_ver_no === tab) ?? model.versions[0];

  async function act(what: 'publish' | 'delist') {
    if (!model) return;
    setBusy(true);
    try {
      if (what === 'publish') await publishModel(api, model.model_id, model.versions.filter((v) => v.status === VersionStatus.Ready).map((v) => v.model_ver_no));
      else await delistModel(api, model.model_id);
      setModel(await modelDetail(api, model.model_id));
      showToast(appStore, t(what === 'publish' ? 'models.published' : 'models.delisted'));
      setError(null);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <article className="models-detail" data-testid="model-detail" data-id={model.model_id}>
      <header className="models-detail__head">
        {model.cover && <img className="models-detail__cover" src={model.cover} alt="" />}
        <div>
          <h1 data-testid="model-name">{model.name}</h1>
          <p className="muted">
            {t('models.by')} <Link to={localePath(locale, `/user/${encodeURIComponent(model.owner.id)}`)}>{model.owner.name}</Link>
            {' · '}
            <span data-testid="model-status">{t(publishKey(model.publish_status))}</span>
          </p>
          <p data-testid="model-fee">{model.is_agency_fee && model.agency_fee > 0 ? t('models.feeShown', { fee: credits(t, model.agency_fee) }) : t('models.free')}</p>
          <p className="muted models-stats">
            {t('models.stats', { uses: model.stats.uses, downloads: model.stats.downloads, likes: model.stats.likes })}
            {model.is_mine && ` · ${t('models.earned', { n: model.stats.earnings })}`}
          </p>
          {model.tags.length > 0 && <p className="models-tags">{model.tags.map((g) => `#${g}`).join(' ')}</p>}
        </div>
      </header>
      {model.is_mine && (
        <div className="models-actions" data-testid="model-owner-actions">
          {model.publish_status !== PublishStatus.Published && (
            <button type="button" className="button button--primary" disabled={busy} onClick={() => void act('publish')} data-testid="model-publish">
              {t('models.publish')}
            </button>
          )}
          {model.publish_status === PublishStatus.Published && (
            <button type="button" className="button" disabled={busy} onClick={() => void act('delist')} data-testid="model-delist">
              {t('models.delist')}
            </button>
          )}
          <Link to={href({ view: 'new' }, `?model_id=${encodeURIComponent(model.model_id)}`)} className="button">
            {t('models.addVersion')}
          </Link>
          <button type="button" className="button" onClick={() => setEditing((e) => !e)} aria-expanded={editing} data-testid="model-edit-open">
            {t('models.edit')}
          </button>
        </div>
      )}
      {model.is_mine && editing && (
        <ModelEdit
          model={model}
          version={version}
          onClose={() => setEditing(false)}
          onSaved={(m) => {
            setModel(m);
            setEditing(false);
          }}
        />
      )}
      <Reactions model={model} />
      <ErrorLine error={error} />
      {model.description && <p className="models-desc">{model.description}</p>}
      <div role="tablist" className="models-tabs" aria-label={t('models.versions')}>
        {model.versions.map((v) => (
          <button key={v.model_ver_no} type="button" role="tab" aria-selected={v === version} className={v === version ? 'button button--primary' : 'button'} onClick={() => setTab(v.model_ver_no)} data-testid="model-version-tab">
            {v.version_name || v.model_ver_no}
          </button>
        ))}
      </div>
      {version ? <Version model={model} v={version} /> : <p className="muted">{t('models.noVersions')}</p>}
      {model.publish_status === PublishStatus.Published && <MadeWith modelId={model.model_id} />}
      <section className="models-comments">
        <Comments
          obj={{ obj_id: model.model_id, obj_type: MODEL_OBJ_TYPE }}
          workAuthor={model.owner.id}
          count={model.stats.comments}
          onCount={(delta) => setModel({ ...model, stats: { ...model.stats, comments: Math.max(0, model.stats.comments + delta) } })}
        />
      </section>
    </article>
  );
}
