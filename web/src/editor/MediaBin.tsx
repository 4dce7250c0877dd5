import { useState } from 'react';
import { renderErrorMessage } from '../i18n/messages';
import { useMessages, useT } from '../i18n/useT';
import { appStore, useAtomValue } from '../state/jotai';
import type { Material } from './api';
import { editorMaterialsAtom, editorMyVideosAtom, editorOpenAtom, editorSelectedAtom, editorUploadAtom } from './atoms';
import { editorSession } from './services';
import { addClip, formatSecs, setMusic } from './timeline';

function addToTimeline(m: Material): void {
  const open = appStore.get(editorOpenAtom);
  if (open === null) return;
  const index = open.timeline.clips.length;
  editorSession.edit({ op: 'addClip', material_id: m.material_id, index }, (t) => addClip(t, m));
  appStore.set(editorSelectedAtom, index);
}

function MaterialItem({ m }: { m: Material }) {
  const t = useT();
  const open = useAtomValue(editorOpenAtom);
  const [confirming, setConfirming] = useState(false);
  const isMusic = open?.timeline.music?.material_id === m.material_id;
  return (
    <li className="editor-material" data-testid="material" data-material-id={m.material_id} data-kind={m.kind}>
      {m.poster_url !== null ? (
        <img className="editor-material__thumb" src={m.poster_url} alt="" loading="lazy" />
      ) : (
        <span className={m.kind === 'audio' ? 'editor-material__thumb editor-material__thumb--audio' : 'editor-material__thumb'} aria-hidden="true">
          {m.kind === 'audio' ? '♪' : '▶'}
        </span>
      )}
      <div className="editor-material__info">
        <strong className="editor-material__name" title={m.name}>
          {m.name || t(`editor.kind.${m.kind}`)}
        </strong>
        <span className="muted gen-small">
          {t(`editor.kind.${m.kind}`)} · {formatSecs(m.duration)}
          {m.kind === 'video' && m.width > 0 ? ` · ${m.width}×${m.height}` : ''}
          {m.source === 'task' ? ` · ${t('editor.fromTask')}` : ''}
        </span>
        <div className="editor-material__actions">
          {m.kind === 'video' && (
            <button type="button" className="button" disabled={open === null} onClick={() => addToTimeline(m)}>
              {t('editor.addClip')}
            </button>
          )}
          {m.has_audio && (
            <button
              type="button"
              className="button"
              disabled={open === null || isMusic}
              onClick={() => editorSession.edit({ op: 'setMusic', material_id: m.material_id }, (tl) => setMusic(tl, m.material_id))}
            >
              {isMusic ? t('editor.isMusic') : t('editor.useAsMusic')}
            </button>
          )}
          {confirming ? (
            <button type="button" className="button editor-danger" onClick={() => void editorSession.deleteMaterial(m.material_id)}>
              {t('editor.deleteConfirm')}
            </button>
          ) : (
            <button type="button" className="button" aria-label={t('editor.deleteMaterialOf', { name: m.name })} onClick={() => setConfirming(true)}>
              {t('editor.delete')}
            </button>
          )}
        </div>
      </div>
    </li>
  );
}

/** The user's finished video tasks, each output addable to the bin. */
function MyVideos() {
  const t = useT();
  const table = useMessages();
  const videos = useAtomValue(editorMyVideosAtom);
  const bin = useAtomValue(editorMaterialsAtom);
  const [adding, setAdding] = useState<string | null>(null);
  const inBin = bin.state === 'ready' ? bin.value.items : [];
  return (
    <section className="editor-myvideos" aria-labelledby="editor-myvideos-title">
      <div className="editor-section-head">
        <h3 id="editor-myvideos-title">{t('editor.myVideos')}</h3>
        <button type="button" className="button button--link" onClick={() => void editorSession.loadMyVideos()}>
          {t('editor.refresh')}
        </button>
      </div>
      {videos.state === 'error' && <p className="form-error">{renderErrorMessage(table, videos.message)}</p>}
      {videos.state === 'loading' && <p className="muted gen-small">{t('gen.loading')}</p>}
      {videos.state === 'ready' && videos.value.length === 0 && <p className="muted gen-small">{t('editor.myVideosEmpty')}</p>}
      {videos.state === 'ready' && videos.value.length > 0 && (
        <ul className="editor-list">
          {videos.value.map((v) => {
            const key = `${v.task_id}:${v.index}`;
            const added = inBin.some((m) => m.source === 'task' && m.url === v.mp4);
            return (
              <li key={key} className="editor-material" data-testid="my-video" data-task-id={v.task_id} data-index={v.index}>
                {v.poster !== null ? <img className="editor-material__thumb" src={v.poster} alt="" loading="lazy" /> : <span className="editor-material__thumb" />}
                <div className="editor-material__info">
                  <span className="editor-material__name" title={v.prompt}>
                    {v.prompt || t('editor.untitledVideo')}
                  </span>
                  <button
                    type="button"
                    className="button"
                    disabled={adding !== null}
                    onClick={() => {
                      setAdding(key);
                      void editorSession.addMaterial({ task_id: v.task_id, index: v.index }).finally(() => setAdding(null));
                    }}
                  >
                    {adding === key ? t('editor.adding') : added ? t('editor.addAgain') : t('editor.addToBin')}
                  </button>
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

/** The media bin: upload, the materials, and "From my videos". */
export function MediaBin() {
  const t = useT();
  const table = useMessages();
  const bin = useAtomValue(editorMaterialsAtom);
  const upload = useAtomValue(editorUploadAtom);
  return (
    <aside className="editor-bin panel" aria-labelledby="editor-bin-title">
      <h2 id="editor-bin-title">{t('editor.media')}</h2>
      <label className={upload !== null ? 'button editor-upload is-busy' : 'button editor-upload'}>
        {t('editor.upload')}
        <input
          type="file"
          accept="video/*,audio/*"
          aria-label={t('editor.uploadLabel')}
          disabled={upload !== null}
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file !== undefined) void editorSession.uploadMaterial(file);
          }}
        />
      </label>
      {upload !== null && (
        <div className="editor-progress" data-testid="upload-progress">
          <span className="muted gen-small">{t('editor.uploading', { name: upload.name })}</span>
          <progress max={100} value={Math.round(upload.fraction * 100)} />
        </div>
      )}
      {bin.state === 'error' && <p className="form-error">{renderErrorMessage(table, bin.message)}</p>}
      {bin.state === 'loading' && <p className="muted gen-small">{t('gen.loading')}</p>}
      {bin.state === 'ready' && bin.value.items.length === 0 && <p className="muted gen-small">{t('editor.mediaEmpty')}</p>}
      {bin.state === 'ready' && bin.value.items.length > 0 && (
        <ul className="editor-list" data-testid="material-list">
          {bin.value.items.map((m) => (
            <MaterialItem key={m.material_id} m={m} />
          ))}
        </ul>
      )}
      {bin.state === 'ready' && bin.value.cursor !== null && (
        <button type="button" className="button button--link" onClick={() => void editorSession.loadMaterials(true)}>
          {t('editor.more')}
        </button>
      )}
      <MyVideos />
    </aside>
  );
}
