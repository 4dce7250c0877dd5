// Training a voice from samples (spec 3 §7 train, train/progress, train/log,
// voice/get, voice/delete): the plain "what it can and cannot clone" text,
// 1-5 audio samples uploaded with the audio helper (category 59), the
// training task's progress bar and log lines, polled while it trains.
import { useEffect, useId, useState } from 'react';
import { api } from '../app/services';
import { useT } from '../i18n/useT';
import { uploadAudio } from '../audio/upload';
import { SAMPLES_MAX, SAMPLES_MIN, TIMBRE_PATHS } from './api';
import type { Sample, Timbre, TrainProgress } from './api';
import { errorText } from './errors';

/** How often a training voice's progress and log are read. */
export const TRAIN_POLL_MS = 2000;

export function TrainPanel({ voice, onChanged }: { voice: Timbre; onChanged: () => void }) {
  const t = useT();
  const titleId = useId();
  const fileId = useId();
  const [samples, setSamples] = useState<Sample[]>([]);
  const [pending, setPending] = useState<{ name: string; url: string | null; error: string | null }[]>([]);
  const [progress, setProgress] = useState<TrainProgress | null>(null);
  const [log, setLog] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const training = voice.status === 'training' || progress?.status === 'training';

  useEffect(() => {
    let live = true;
    api
      .post<{ samples: Sample[] }>(TIMBRE_PATHS.samples, { id: voice.id })
      .then((r) => live && setSamples(r.samples))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [voice.id]);

  useEffect(() => {
    if (!training && progress === null && !voice.train_task_id) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const tick = async () => {
      try {
        const [p, l] = await Promise.all([
          api.post<TrainProgress>(TIMBRE_PATHS.progress, { id: voice.id }),
          api.post<{ lines: string[] }>(TIMBRE_PATHS.log, { id: voice.id }).catch(() => ({ lines: [] as string[] })),
        ]);
        if (!live) return;
        setProgress(p);
        setLog(l.lines);
        if (p.status === 'training') timer = setTimeout(() => void tick(), TRAIN_POLL_MS);
        else if (voice.status === 'training') onChanged();
      } catch (e) {
        if (live) setError(errorText(t, e));
      }
    };
    void tick();
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
    // Restart polling when training starts (progress reset to training) or the voice changes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [voice.id, training]);

  async function add(files: FileList | null) {
    if (!files) return;
    const picked = [...files].slice(0, SAMPLES_MAX - pending.filter((p) => p.url).length);
    for (const file of picked) {
      setPending((all) => [...all, { name: file.name, url: null, error: null }]);
      try {
        const up = await uploadAudio(file, { api });
        setPending((all) => all.map((p) => (p.name === file.name && p.url === null ? { ...p, url: up.url } : p)));
      } catch (e) {
        const text = errorText(t, e);
        setPending((all) => all.map((p) => (p.name === file.name && p.url === null ? { ...p, error: text } : p)));
      }
    }
  }

  async function removeSample(sampleId: string) {
    try {
      await api.post(TIMBRE_PATHS.deleteSample, { id: voice.id, sample_id: sampleId });
      setSamples((all) => all.filter((s) => s.id !== sampleId));
    } catch (e) {
      setError(errorText(t, e));
    }
  }

  const ready = pending.filter((p) => p.url !== null);
  async function start() {
    setBusy(true);
    setError(null);
    try {
      await api.post<{ id: string; task_id: string }>(TIMBRE_PATHS.train, { id: voice.id, samples: ready.map((p) => p.url) });
      setPending([]);
      setProgress({ status: 'training', percent: 0, task_id: null });
      onChanged();
    } catch (e) {
      setError(errorText(t, e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="panel gen-form" aria-labelledby={titleId} data-testid="timbre-train">
      <h2 id={titleId} className="gen-form__title">
        {t('timbre.trainTitle')}
      </h2>
      <p data-testid="timbre-can">{t('timbre.canClone')}</p>
      <p data-testid="timbre-cannot">{t('timbre.cannotClone')}</p>
      {samples.length > 0 && (
        <ul className="audio-speech__list">
          {samples.map((s) => (
            <li key={s.id} className="message-speech">
              <audio src={s.url} controls preload="none" />
              <span className="muted">{t('timbre.sampleDuration', { seconds: Math.round(s.duration) })}</span>
              <button type="button" className="button" onClick={() => void removeSample(s.id)}>
                {t('timbre.removeSample')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="field">
        <label htmlFor={fileId} className="field__label">
          {t('timbre.samples', { count: ready.length })}
        </label>
        <input id={fileId} type="file" accept="audio/*" multiple disabled={training || ready.length >= SAMPLES_MAX} onChange={(e) => void add(e.target.files)} data-testid="timbre-samples" />
      </div>
      {pending.length > 0 && (
        <ul className="audio-speech__list">
          {pending.map((p, i) => (
            <li key={`${p.name}-${i}`} className={p.error ? 'form-error' : 'muted gen-small'}>
              {p.name}: {p.error ?? (p.url ? t('audio.uploaded') : t('audio.uploading'))}
            </li>
          ))}
        </ul>
      )}
      <button
        type="button"
        className="button button--primary"
        disabled={busy || training || ready.length < SAMPLES_MIN || ready.length > SAMPLES_MAX}
        onClick={() => void start()}
        data-testid="timbre-start-training"
      >
        {t('timbre.startTraining')}
      </button>
      {progress && (
        <div className="task-progress-row">
          <progress className="task-progress" max={100} value={progress.percent} aria-label={t('timbre.progress')} data-testid="timbre-progress" />
          <span className="task-progress__pct">{progress.percent}%</span>
          <span className="muted">{t(progress.status === 'training' ? 'timbre.status.training' : progress.status === 'failed' ? 'timbre.status.failed' : 'timbre.status.ready')}</span>
        </div>
      )}
      {log.length > 0 && (
        <>
          <h3 className="gen-form__title">{t('timbre.log')}</h3>
          <pre className="timbre-log" data-testid="timbre-log">
            {log.join('\n')}
          </pre>
        </>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
