// My models (issue 19 item 6): drafts and published models with their
// versions' state; publish, delist, delete (refused with the server's reason
// while a version is used: `model/ver/can-del`), and my earnings as a
// creator (`model/leaderboard/creator-earnings`).
import { useCallback, useEffect, useState } from 'react';
import { Link } from '../app/Link';
import { api } from '../app/services';
import { useT } from '../i18n/useT';
import { ConfirmDialog } from '../tavern/ConfirmDialog';
import { canDeleteVersion, creatorEarnings, deleteModel, delistModel, myModels, publishModel, PublishStatus, VersionStatus } from './api';
import type { Earnings, ModelView } from './api';
import { publishKey, versionKey } from './format';
import { credits, ErrorLine, useModelsHref } from './ui';

export function EarningsPanel() {
  const t = useT();
  const [earnings, setEarnings] = useState<Earnings | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    creatorEarnings(api)
      .then((e) => live && setEarnings(e))
      .catch((e: unknown) => live && setError(e));
    return () => {
      live = false;
    };
  }, []);
  return (
    <section className="panel models-earnings" data-testid="models-earnings" aria-label={t('models.earnings')}>
      <h2>{t('models.earnings')}</h2>
      <ErrorLine error={error} />
      {earnings && (
        <>
          <p className="models-earnings__total">
            {t('models.earningsTotal')} <strong data-testid="models-earnings-total">{earnings.total}</strong>
          </p>
          {earnings.byModel.length > 0 && (
            <table className="models-table">
              <thead>
                <tr>
                  <th>{t('models.model')}</th>
                  <th>{t('models.uses')}</th>
                  <th>{t('models.earned.col')}</th>
                </tr>
              </thead>
              <tbody>
                {earnings.byModel.map((m) => (
                  <tr key={m.model_id} data-testid="models-earnings-row">
                    <td>{m.name}</td>
                    <td>{m.uses}</td>
                    <td>{credits(t, m.credits)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {earnings.recent.length > 0 && (
            <ul className="models-earnings__recent">
              {earnings.recent.slice(0, 20).map((e, i) => (
                <li key={`${e.task_id ?? ''}-${e.model_ver_no ?? ''}-${i}`}>
                  {e.at ? new Date(e.at).toLocaleString() : ''} · {e.model_name ?? e.model_id} · +{credits(t, e.credits)}
                </li>
              ))}
            </ul>
          )}
          {earnings.total === 0 && earnings.recent.length === 0 && <p className="muted">{t('models.earningsNone')}</p>}
        </>
      )}
    </section>
  );
}

function MyModelRow({ m, onChanged }: { m: ModelView; onChanged: () => void }) {
  const t = useT();
  const href = useModelsHref();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [confirm, setConfirm] = useState<string | null>(null);

  async function run(f: () => Promise<unknown>) {
    setBusy(true);
    setError(null);
    try {
      await f();
      onChanged();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  /** Asks the server whether every version may go; shows its reason when one may not. */
  async function askDelete() {
    setError(null);
    try {
      for (const v of m.versions) {
        const answer = await canDeleteVersion(api, v.model_ver_no);
        if (!answer.can_delete) {
          setError(new Error(answer.reason ? t('models.cannotDeleteWhy', { reason: answer.reason }) : t('modelVersionInUse')));
          return;
        }
      }
      setConfirm(m.model_id);
    } catch (e) {
      setError(e);
    }
  }

  const ready = m.versions.filter((v) => v.status === VersionStatus.Ready).map((v) => v.model_ver_no);
  return (
    <li className="panel models-mine__item" data-testid="my-model" data-id={m.model_id} data-status={m.publish_status}>
      <div className="models-mine__head">
        <Link to={href({ view: 'detail', id: m.model_id })} className="models-mine__name">
          {m.name}
        </Link>
        <span className="models-badge">{t(`models.type.${m.model_type}`)}</span>
        <span className="models-badge">{m.base_model_name || m.base_model}</span>
        <span className="models-badge" data-testid="my-model-status">
          {t(publishKey(m.publish_status))}
        </span>
      </div>
      <ul className="models-mine__versions">
        {m.versions.map((v) => (
          <li key={v.model_ver_no}>
            {v.version_name} · {t(versionKey(v.status))}
            {v.status_msg ? ` · ${v.status_msg}` : ''}
          </li>
        ))}
      </ul>
      <div className="models-actions">
        {m.publish_status !== PublishStatus.Published && ready.length > 0 && (
          <button type="button" className="button button--primary" disabled={busy} onClick={() => void run(() => publishModel(api, m.model_id, ready))}>
            {t('models.publish')}
          </button>
        )}
        {m.publish_status === PublishStatus.Published && (
          <button type="button" className="button" disabled={busy} onClick={() => void run(() => delistModel(api, m.model_id))}>
            {t('models.delist')}
          </button>
        )}
        <Link to={href({ view: 'new' }, `?model_id=${encodeURIComponent(m.model_id)}`)} className="button">
          {t('models.addVersion')}
        </Link>
        <button type="button" className="button" disabled={busy} onClick={() => void askDelete()} data-testid="my-model-delete">
          {t('models.delete')}
        </button>
      </div>
      <ErrorLine error={error} />
      {confirm && (
        <ConfirmDialog
          title={t('models.deleteTitle')}
          message={t('models.deleteConfirm', { name: m.name })}
          confirmLabel={t('models.delete')}
          onCancel={() => setConfirm(null)}
          onConfirm={() => {
            setConfirm(null);
            void run(() => deleteModel(api, m.model_id));
          }}
        />
      )}
    </li>
  );
}

export function MyModels() {
  const t = useT();
  const href = useModelsHref();
  const [items, setItems] = useState<ModelView[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(() => {
    myModels(api, null)
      .then((p) => {
        setItems(p.items);
        setCursor(p.next_cursor);
      })
      .catch(setError);
  }, []);
  useEffect(load, [load]);
  const drafts = (items ?? []).filter((m) => m.publish_status === PublishStatus.Draft);
  const others = (items ?? []).filter((m) => m.publish_status !== PublishStatus.Draft);
  return (
    <div className="models-mine" data-testid="my-models">
      <EarningsPanel />
      <ErrorLine error={error} />
      {items !== null && items.length === 0 && (
        <p className="muted">
          {t('models.mineNone')} <Link to={href({ view: 'new' })}>{t('models.nav.new')}</Link>
        </p>
      )}
      {drafts.length > 0 && <h2>{t('models.drafts')}</h2>}
      <ul className="models-mine__list">
        {drafts.map((m) => (
          <MyModelRow key={m.model_id} m={m} onChanged={load} />
        ))}
      </ul>
      {others.length > 0 && <h2>{t('models.publishedList')}</h2>}
      <ul className="models-mine__list">
        {others.map((m) => (
          <MyModelRow key={m.model_id} m={m} onChanged={load} />
        ))}
      </ul>
      {cursor && (
        <button
          type="button"
          className="button"
          onClick={() =>
            void myModels(api, cursor).then((p) => {
              setItems((now) => [...(now ?? []), ...p.items]);
              setCursor(p.next_cursor);
            }, setError)
          }
        >
          {t('models.more')}
        </button>
      )}
    </div>
  );
}
