import { renderErrorMessage } from '../i18n/messages';
import { useMessages, useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { VideoPlayer } from '../video/VideoPlayer';
import { editorExportAtom, editorOpenAtom } from './atoms';
import { editorSession } from './services';

/** Export: the button, the progress while the render runs, then the result in the video page's player. */
export function ExportPanel() {
  const t = useT();
  const table = useMessages();
  const open = useAtomValue(editorOpenAtom);
  const exp = useAtomValue(editorExportAtom);
  if (open === null) return null;
  const busy = exp.state === 'starting' || exp.state === 'running';
  const progress = exp.state === 'running' ? exp.check.progress : exp.state === 'starting' ? 0 : null;
  return (
    <section className="editor-export panel" aria-labelledby="editor-export-title" data-testid="editor-export" data-state={exp.state}>
      <div className="editor-section-head">
        <h2 id="editor-export-title">{t('editor.export')}</h2>
        <span className="muted gen-small">{t('editor.exportSize', { width: open.workspace.width, height: open.workspace.height, fps: open.workspace.fps })}</span>
      </div>
      <button
        type="button"
        className="button button--primary"
        disabled={busy || open.timeline.clips.length === 0}
        onClick={() => void editorSession.exportOpen()}
      >
        {busy ? t('editor.exporting') : t('editor.exportButton')}
      </button>
      {progress !== null && (
        <div className="editor-progress" data-testid="export-progress-box">
          <progress data-testid="export-progress" max={100} value={progress} aria-label={t('editor.exportProgress')} />
          <span className="muted gen-small" data-testid="export-percent">
            {exp.state === 'running' && exp.check.status === 'queued' ? t('editor.exportQueued') : t('editor.exportPercent', { pct: Math.round(progress) })}
          </span>
        </div>
      )}
      {exp.state === 'failed' && (
        <p className="form-error" role="alert" data-testid="export-error">
          {renderErrorMessage(table, exp.message)}
        </p>
      )}
      {exp.state === 'succeeded' && exp.check.video_url !== null && (
        <div className="editor-result" data-testid="export-result" data-task-id={exp.check.task_id}>
          <p className="muted gen-small">{t('editor.exportDone')}</p>
          <VideoPlayer
            key={exp.check.video_url}
            output={{
              mp4: exp.check.video_url,
              hls: undefined,
              poster: exp.check.poster_url ?? undefined,
              width: open.workspace.width,
              height: open.workspace.height,
            }}
            label={t('editor.exportResult')}
          />
        </div>
      )}
    </section>
  );
}
