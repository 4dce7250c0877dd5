import { memo } from 'react';
import type { MessageKey } from '../i18n/messages';
import { isMessageKey } from '../i18n/messages';
import { useT } from '../i18n/useT';
import type { Translate } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { ActionBar } from './ActionBar';
import { tasksAtom } from './atoms';
import { isActive } from './model';
import { sourceImages } from './requests';
import { cancelTask, deleteTask } from './runner';
import { TaskStatus } from './types';
import type { Task } from './types';
import { videoOutputs } from '../video/player';
import { VideoPlayer } from '../video/VideoPlayer';
import { VideoActionBar } from '../video/VideoActionBar';
import { WaveformPlayer } from '../audio/WaveformPlayer';

function kindLabel(t: Translate, type: number): string {
  const key = `tasks.kind.${type}`;
  return isMessageKey(key) ? t(key) : t('tasks.kind.other');
}

function statusKey(status: number): MessageKey {
  const key = `tasks.status.${status}`;
  return isMessageKey(key) ? key : 'tasks.status.pending';
}

/** One task of the list, by id (a just-created task shows as starting until its first state). */
export const TaskCard = memo(function TaskCard({ id }: { id: string }) {
  const task = useAtomValue(tasksAtom).byId[id];
  const t = useT();
  if (!task) {
    return (
      <li className="task-card" data-testid="task-card" data-task-id={id} data-status="pending">
        <div className="task-card__head">
          <span className="task-status">{t('tasks.status.pending')}</span>
        </div>
        <progress className="task-progress" max={100} value={0} aria-label={t('tasks.progress')} />
      </li>
    );
  }
  return (
    <li className="task-card" data-testid="task-card" data-task-id={id} data-status={task.status}>
      <div className="task-card__head">
        <span className="task-card__kind">{kindLabel(t, task.type)}</span>
        <span className={`task-status task-status--${task.status}`}>{t(statusKey(task.status))}</span>
        <time className="muted task-card__time" dateTime={new Date(task.create_at).toISOString()}>
          {new Date(task.create_at).toLocaleString()}
        </time>
      </div>
      {task.prompt !== '' && <p className="task-card__prompt">{task.prompt}</p>}
      {isActive(task) && <Progress task={task} />}
      {task.status === TaskStatus.Success && <Results task={task} />}
      {task.status === TaskStatus.Ended && (
        <p className="task-card__reason" role="note">
          {task.reason ? t('tasks.reason', { reason: task.reason }) : t('tasks.reasonUnknown')}
        </p>
      )}
      {task.engine && !audioOnly(task) && <p className="muted task-card__engine">{t('tasks.engine', { label: task.engine.label })}</p>}
      <div className="task-card__ops">
        {isActive(task) ? (
          <button type="button" className="button" onClick={() => void cancelTask(task.id)}>
            {t('tasks.cancel')}
          </button>
        ) : (
          <button type="button" className="button" onClick={() => void deleteTask(task.id)}>
            {t('tasks.delete')}
          </button>
        )}
      </div>
    </li>
  );
});

function Progress({ task }: { task: Task }) {
  const t = useT();
  const queued = task.status === TaskStatus.Queued;
  return (
    <div className="task-progress-row">
      <progress className="task-progress" max={100} value={task.process} aria-label={t('tasks.progress')} />
      <span className="task-progress__pct" aria-hidden="true">
        {task.process}%
      </span>
      <span className="muted task-progress__info">
        {queued && task.queue_position !== null
          ? task.queue_position === 0
            ? t('tasks.queueNext')
            : t('tasks.queuePosition', { position: task.queue_position })
          : null}
        {queued && task.queue_position !== null && task.rest_estimate_time > 0 ? ' · ' : null}
        {task.rest_estimate_time > 0 ? t('tasks.estimate', { seconds: task.rest_estimate_time }) : null}
      </span>
    </div>
  );
}

/** A task whose results are sound only: its players say which engine made them. */
function audioOnly(task: Task): boolean {
  return (task.audio_uris ?? []).length > 0 && (task.video_uris ?? []).length === 0;
}

/** An audio task's files in waveform players, with the engine that made them. */
function AudioResults({ task }: { task: Task }) {
  const t = useT();
  const audios = task.audio_uris ?? [];
  return (
    <div className="task-results task-results--audio" data-testid="task-audio">
      {audios.map((url, i) => (
        <figure key={url} className="task-result task-result--audio">
          <WaveformPlayer src={url} engine={i === 0 && audioOnly(task) ? task.engine : null} testId="task-audio-player" />
          {audios.length > 1 && <figcaption className="muted">{t('tasks.audioOutput', { index: i + 1, count: audios.length })}</figcaption>}
        </figure>
      ))}
    </div>
  );
}

function Results({ task }: { task: Task }) {
  const t = useT();
  const videos = videoOutputs(task);
  const hasAudio = (task.audio_uris ?? []).length > 0;
  if (hasAudio && videos.length === 0) return <AudioResults task={task} />;
  if (videos.length > 0) {
    // Video tasks: a player per output (img_uris are their posters).
    return (
      <div className="task-results task-results--video">
        {videos.map((v, i) => (
          <VideoPlayer key={v.mp4} output={v} label={t('video.output', { index: i + 1, count: videos.length })} />
        ))}
        {/* The tools work on the task's first video (backend tasks/video.rs source_video). */}
        {videos[0] && <VideoActionBar task={task} output={videos[0]} />}
        {hasAudio && <AudioResults task={task} />}
      </div>
    );
  }
  const images = sourceImages(task);
  return (
    <div className="task-results">
      {images.map((img, i) => (
        <figure key={img.url} className="task-result">
          <a href={img.url} target="_blank" rel="noreferrer">
            <img
              src={img.url}
              width={img.width}
              height={img.height}
              loading="lazy"
              alt={
                task.prompt
                  ? t('tasks.image', { index: i + 1, count: images.length, prompt: task.prompt })
                  : t('tasks.imageNoPrompt', { index: i + 1, count: images.length })
              }
              data-testid="task-image"
            />
          </a>
          <figcaption className="muted">{t('tasks.size', { width: img.width, height: img.height })}</figcaption>
          <ActionBar task={task} img={img} />
        </figure>
      ))}
    </div>
  );
}
