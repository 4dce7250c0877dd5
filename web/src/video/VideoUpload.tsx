import { useId } from 'react';
import { api } from '../app/services';
import { useT } from '../i18n/useT';
import { appStore, useAtomValue } from '../state/jotai';
import type { Cover } from './cover';
import { refreshVideoUpload, retryVideoUpload, uploadVideo, videoCoverAtom, videoUploadAtom } from './toolRun';

/** Picker filter: videos the browser knows. */
const ACCEPT = 'video/mp4,video/quicktime,video/webm,video/x-matroska,video/*';

/** A captured cover, or the empty poster (saturation 0) when none could be captured (§4). */
export function VideoCover({ cover, label }: { cover: Cover; label: string }) {
  const t = useT();
  if (cover.url === '') {
    return (
      <div className="video-cover video-cover--empty" data-testid="video-cover" data-saturation={0} role="img" aria-label={t('video.upload.noCover')}>
        <span className="muted">{t('video.upload.noCover')}</span>
      </div>
    );
  }
  return <img className="video-cover" data-testid="video-cover" data-saturation={1} src={cover.url} width={cover.width} height={cover.height} alt={label} />;
}

/**
 * The video upload (spec 2 §4, §8): a file picker, the cover of the picked
 * file, a progress bar with the state, the message of a failure, and a
 * retry (resumes from the last confirmed part) or a start-over (after a
 * confirmation error).
 */
export function VideoUpload() {
  const t = useT();
  const id = useId();
  const state = useAtomValue(videoUploadAtom);
  const cover = useAtomValue(videoCoverAtom);
  const pending = state.status === 'pending';
  const percent = state.total > 0 ? Math.floor((state.sent * 100) / state.total) : 0;
  return (
    <div className="field video-upload" data-testid="video-upload" data-status={state.status}>
      <label htmlFor={id}>{t('video.upload.label')}</label>
      <input
        id={id}
        type="file"
        accept={ACCEPT}
        disabled={pending}
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          e.currentTarget.value = '';
          if (file) void uploadVideo(appStore, api, file);
        }}
      />
      <p className="muted gen-small">{t('video.upload.hint')}</p>
      {cover && <VideoCover cover={cover} label={t('video.upload.cover', { name: state.fileName })} />}
      {state.status !== 'init' && (
        <div className="gen-progress video-upload__progress">
          <progress data-testid="video-upload-progress" max={100} value={percent} aria-label={t('video.upload.progressLabel')} />
          <span className="muted" data-testid="video-upload-state">
            {t(`video.upload.status.${state.status}`, { percent, name: state.fileName })}
          </span>
        </div>
      )}
      {state.message && (
        <p className="form-error" role="alert" data-testid="video-upload-message" data-key={state.message}>
          {t(state.message)}
          {state.detail !== '' && <span className="muted gen-small"> ({state.detail})</span>}
        </p>
      )}
      {state.status === 'fail' && state.fileId !== null && (
        <button type="button" className="button" onClick={() => void retryVideoUpload(appStore, api)}>
          {t('video.upload.retry', { percent })}
        </button>
      )}
      {state.status === 'error' && (
        <button type="button" className="button" onClick={() => refreshVideoUpload(appStore, api)}>
          {t('video.upload.startOver')}
        </button>
      )}
    </div>
  );
}
