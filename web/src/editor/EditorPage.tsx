import { useEffect, useState } from 'react';
import { loginDialogAtom, tokenAtom } from '../account/atoms';
import { Link } from '../app/Link';
import { renderErrorMessage } from '../i18n/messages';
import { useMessages, useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue, useSetAtom } from '../state/jotai';
import { editorHistoryAtom, editorOpenAtom, editorProblemAtom, editorSaveAtom, editorWorkspacesAtom } from './atoms';
import { ExportPanel } from './ExportPanel';
import { MediaBin } from './MediaBin';
import { editorSession } from './services';
import { TimelinePanel } from './TimelinePanel';
import { MAX_NAME_CHARS } from './timeline';
import './editor.css';

/** The workspace picker, New, the name, Undo, Delete and the save state. */
function WorkspaceBar() {
  const t = useT();
  const table = useMessages();
  const list = useAtomValue(editorWorkspacesAtom);
  const open = useAtomValue(editorOpenAtom);
  const history = useAtomValue(editorHistoryAtom);
  const save = useAtomValue(editorSaveAtom);
  const [confirming, setConfirming] = useState(false);
  const items = list.state === 'ready' ? list.value : [];
  const openId = open?.workspace.workspace_id ?? '';
  return (
    <div className="editor-bar panel" data-testid="editor-bar">
      <label className="editor-field">
        <span>{t('editor.workspace')}</span>
        <select
          value={openId}
          onChange={(e) => {
            setConfirming(false);
            if (e.target.value !== '') void editorSession.open(e.target.value);
          }}
          disabled={items.length === 0}
        >
          {openId === '' && <option value="">{t('editor.noWorkspace')}</option>}
          {items.map((w) => (
            <option key={w.workspace_id} value={w.workspace_id}>
              {w.workspace_id === openId ? open?.name || t('editor.untitled') : w.name || t('editor.untitled')}
            </option>
          ))}
        </select>
      </label>
      <button type="button" className="button" onClick={() => void editorSession.create()}>
        {t('editor.new')}
      </button>
      {open !== null && (
        <>
          <label className="editor-field editor-field--grow">
            <span>{t('editor.name')}</span>
            <input type="text" value={open.name} maxLength={MAX_NAME_CHARS} onChange={(e) => editorSession.rename(e.target.value)} />
          </label>
          <button type="button" className="button" disabled={history.length === 0} onClick={() => editorSession.undo()}>
            {t('editor.undo')}
          </button>
          {confirming ? (
            <>
              <button
                type="button"
                className="button editor-danger"
                onClick={() => {
                  setConfirming(false);
                  void editorSession.remove(openId);
                }}
              >
                {t('editor.deleteConfirm')}
              </button>
              <button type="button" className="button" onClick={() => setConfirming(false)}>
                {t('editor.cancel')}
              </button>
            </>
          ) : (
            <button type="button" className="button" onClick={() => setConfirming(true)}>
              {t('editor.deleteWorkspace')}
            </button>
          )}
          <span className="muted editor-save" data-testid="editor-save" data-state={save} role="status">
            {t(`editor.save.${save}`)}
          </span>
        </>
      )}
      {list.state === 'error' && (
        <p className="form-error" role="alert">
          {renderErrorMessage(table, list.message)}
        </p>
      )}
    </div>
  );
}

function Problem() {
  const table = useMessages();
  const problem = useAtomValue(editorProblemAtom);
  if (problem === null) return null;
  return (
    <p className="form-error editor-problem" role="alert" data-testid="editor-problem" data-key={'key' in problem ? problem.key : ''}>
      {renderErrorMessage(table, problem)}
      <button type="button" className="button button--link" onClick={() => editorSession.clearProblem()}>
        ×
      </button>
    </p>
  );
}

/** `/{locale}/create/video/editor`: the video editor (spec 2 §7 "Video editor"). */
export function EditorPage() {
  const t = useT();
  const token = useAtomValue(tokenAtom);
  const locale = useAtomValue(localeAtom);
  const open = useAtomValue(editorOpenAtom);
  const list = useAtomValue(editorWorkspacesAtom);
  const openLogin = useSetAtom(loginDialogAtom);

  useEffect(() => {
    if (token === null) return;
    const visit = editorSession.enter();
    const wanted = new URLSearchParams(window.location.search).get('workspace');
    void editorSession.loadWorkspaces(wanted);
    void editorSession.loadMaterials();
    void editorSession.loadMyVideos();
    return () => void editorSession.close(visit);
  }, [token]);

  const header = (
    <header className="editor__header">
      <h1>{t('editor.title')}</h1>
      <Link to={localePath(locale, '/create/video')} className="button button--link">
        {t('editor.backToVideo')}
      </Link>
    </header>
  );

  if (token === null) {
    return (
      <section className="editor" aria-label={t('editor.title')}>
        {header}
        <div className="panel">
          <p>{t('editor.needLogin')}</p>
          <button type="button" className="button button--primary" onClick={() => openLogin({ open: true, step: 'login' })}>
            {t('header.logIn')}
          </button>
        </div>
      </section>
    );
  }

  return (
    <section className="editor" aria-label={t('editor.title')}>
      {header}
      <WorkspaceBar />
      <Problem />
      <div className="editor__body">
        <MediaBin />
        <div className="editor__main">
          {open !== null ? (
            <>
              <TimelinePanel />
              <ExportPanel />
            </>
          ) : (
            <div className="panel editor-empty">
              <p className="muted">{list.state === 'loading' ? t('gen.loading') : t('editor.noWorkspaceHint')}</p>
              {list.state !== 'loading' && (
                <button type="button" className="button button--primary" onClick={() => void editorSession.create()}>
                  {t('editor.new')}
                </button>
              )}
            </div>
          )}
        </div>
      </div>
    </section>
  );
}
