// The fields of each audio tab, editing `audioFormsAtom`. Sources: a video
// (uploaded, category 8, or an own task's id), a picture for lip-sync
// (checked with detectFace so the user hears at once whether a face was
// found), an audio clip (the audio upload helper, category 59).
import { useId, useState } from 'react';
import type { ReactNode } from 'react';
import { api } from '../app/services';
import { uploadFile } from '../generator/upload';
import { errorText } from '../timbre/errors';
import { useT } from '../i18n/useT';
import { useAtom } from '../state/jotai';
import { VoicePicker } from '../timbre/VoicePicker';
import { LANGUAGES } from '../timbre/api';
import { audioFormsAtom } from './atoms';
import { AUDIO_CALLS, EMOTIONS, GENERATE_MODES, LIMITS, LIP_SYNC_TABS } from './model';
import type { AudioForms, AudioTab, Emotion, GenerateMode, VideoInfo } from './model';
import { uploadAudio } from './upload';

function Field({ label, children, hint }: { label: string; hint?: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      {children(id)}
      {hint && <p className="muted gen-small">{hint}</p>}
    </div>
  );
}

function Text({ label, value, onChange, rows = 3, max, testId, placeholder }: { label: string; value: string; onChange: (v: string) => void; rows?: number; max?: number; testId: string; placeholder?: string }) {
  const t = useT();
  return (
    <Field label={label} {...(max ? { hint: t('audio.chars', { count: [...value].length, max }) } : {})}>
      {(id) => (
        <textarea id={id} className="tavern-input" rows={rows} value={value} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} data-testid={testId} />
      )}
    </Field>
  );
}

function Seconds({ label, value, range, onChange, testId }: { label: string; value: number; range: { min: number; max: number }; onChange: (v: number) => void; testId: string }) {
  const t = useT();
  return (
    <Field label={label} hint={t('audio.secondsRange', range)}>
      {(id) => <input id={id} type="number" className="tavern-input" min={range.min} max={range.max} step={1} value={value} onChange={(e) => onChange(Number(e.target.value))} data-testid={testId} />}
    </Field>
  );
}

function Speed({ value, onChange }: { value: number; onChange: (v: number) => void }) {
  const t = useT();
  return (
    <Field label={t('audio.speed', { speed: value.toFixed(2) })}>
      {(id) => <input id={id} type="range" min={LIMITS.speedMin} max={LIMITS.speedMax} step={0.05} value={value} onChange={(e) => onChange(Number(e.target.value))} data-testid="audio-speed" />}
    </Field>
  );
}

function EmotionPick({ value, onChange }: { value: Emotion; onChange: (v: Emotion) => void }) {
  const t = useT();
  return (
    <Field label={t('audio.emotion')}>
      {(id) => (
        <select id={id} className="tavern-input" value={value} onChange={(e) => onChange(e.target.value as Emotion)} data-testid="audio-emotion">
          {EMOTIONS.map((e) => (
            <option key={e} value={e}>
              {t(`audio.emotion.${e}`)}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

function Choice<T extends string>({ legend, options, value, onChange, name, label }: { legend: string; options: readonly T[]; value: T; onChange: (v: T) => void; name: string; label: (v: T) => string }) {
  return (
    <fieldset className="field audio-choice">
      <legend className="field__label">{legend}</legend>
      {options.map((o) => (
        <label key={o} className="audio-choice__opt">
          <input type="radio" name={name} value={o} checked={value === o} onChange={() => onChange(o)} data-testid={`${name}-${o}`} /> {label(o)}
        </label>
      ))}
    </fieldset>
  );
}

/** Upload a file and answer its URL; the state line under the input. */
function useUpload() {
  const t = useT();
  const [state, setState] = useState<{ status: 'idle' | 'uploading' | 'done' | 'error'; text: string }>({ status: 'idle', text: '' });
  async function run(task: () => Promise<string>): Promise<string | null> {
    setState({ status: 'uploading', text: t('audio.uploading') });
    try {
      const url = await task();
      setState({ status: 'done', text: t('audio.uploaded') });
      return url;
    } catch (e) {
      setState({ status: 'error', text: errorText(t, e) });
      return null;
    }
  }
  return { state, run };
}

function UploadLine({ state, testId }: { state: { status: string; text: string }; testId: string }) {
  if (state.status === 'idle') return null;
  return (
    <p className={state.status === 'error' ? 'form-error' : 'muted gen-small'} role={state.status === 'error' ? 'alert' : 'status'} data-testid={testId} data-status={state.status}>
      {state.text}
    </p>
  );
}

function VideoSource({ value, onChange }: { value: VideoInfo; onChange: (v: VideoInfo) => void }) {
  const t = useT();
  const up = useUpload();
  return (
    <>
      <Field label={t('audio.videoFile')}>
        {(id) => (
          <input
            id={id}
            type="file"
            accept="video/*"
            data-testid="audio-video-file"
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (!file) return;
              void up.run(() => uploadFile({ api, file, fileName: file.name, category: 8 })).then((url) => url && onChange({ url, parentTaskId: '' }));
            }}
          />
        )}
      </Field>
      <UploadLine state={up.state} testId="audio-video-upload" />
      <Field label={t('audio.videoTask')} hint={t('audio.videoTaskHint')}>
        {(id) => <input id={id} className="tavern-input" value={value.parentTaskId} onChange={(e) => onChange({ url: '', parentTaskId: e.target.value })} data-testid="audio-video-task" />}
      </Field>
      {value.url && (
        <video className="audio-video-preview" src={value.url} controls muted preload="metadata" aria-label={t('audio.videoFile')} />
      )}
    </>
  );
}

interface FaceAnswer {
  has_face: boolean;
  single_face: boolean;
  frames_checked: number;
  faces: unknown[];
}

/** The lip-sync source: a video or a picture, with the face check's answer. */
function FaceSource({ forms, set }: { forms: AudioForms['lipSync']; set: (f: AudioForms['lipSync']) => void }) {
  const t = useT();
  const up = useUpload();
  const [face, setFace] = useState<{ state: 'idle' | 'checking' | 'done' | 'error'; answer?: FaceAnswer; text?: string }>({ state: 'idle' });
  async function check(url: string) {
    setFace({ state: 'checking' });
    try {
      const answer = await api.post<FaceAnswer>(AUDIO_CALLS.detectFace, { url });
      setFace({ state: 'done', answer });
    } catch (e) {
      setFace({ state: 'error', text: errorText(t, e) });
    }
  }
  return (
    <>
      <Field label={t('audio.faceFile')} hint={t('audio.faceHint')}>
        {(id) => (
          <input
            id={id}
            type="file"
            accept="video/*,image/png,image/jpeg,image/webp"
            data-testid="lipsync-file"
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (!file) return;
              const isVideo = file.type.startsWith('video/');
              void up
                .run(() => uploadFile({ api, file, fileName: file.name, category: isVideo ? 8 : 1 }))
                .then((url) => {
                  if (!url) return;
                  set(isVideo ? { ...forms, videoInfo: { url, parentTaskId: '' }, imageUrl: '' } : { ...forms, imageUrl: url, videoInfo: { url: '', parentTaskId: '' } });
                  void check(url);
                });
            }}
          />
        )}
      </Field>
      <UploadLine state={up.state} testId="lipsync-upload" />
      {face.state !== 'idle' && (
        <p
          className={face.state === 'error' || (face.answer && !face.answer.has_face) ? 'form-error' : 'muted gen-small'}
          role="status"
          data-testid="face-check"
          data-has-face={face.answer?.has_face ?? ''}
        >
          {face.state === 'checking'
            ? t('audio.faceChecking')
            : face.state === 'error'
              ? face.text
              : !face.answer?.has_face
                ? t('audio.faceNone', { frames: face.answer?.frames_checked ?? 0 })
                : face.answer.single_face
                  ? t('audio.faceOne')
                  : t('audio.faceMany', { count: face.answer.faces.length })}
        </p>
      )}
    </>
  );
}

function AudioClip({ value, onChange }: { value: string; onChange: (url: string) => void }) {
  const t = useT();
  const up = useUpload();
  return (
    <>
      <Field label={t('audio.audioFile')} hint={t('audio.audioFileHint')}>
        {(id) => (
          <input
            id={id}
            type="file"
            accept="audio/*"
            data-testid="audio-file"
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (!file) return;
              void up.run(async () => (await uploadAudio(file, { api })).url).then((url) => url && onChange(url));
            }}
          />
        )}
      </Field>
      <UploadLine state={up.state} testId="audio-upload" />
      {value && <audio src={value} controls preload="metadata" />}
    </>
  );
}

export function AudioFields({ tab }: { tab: AudioTab }) {
  const t = useT();
  const [forms, setForms] = useAtom(audioFormsAtom);
  const set = <K extends keyof AudioForms>(k: K, v: AudioForms[K]) => setForms((f) => ({ ...f, [k]: v }));
  const modeLabel = (m: GenerateMode) => t(`audio.mode.${m}`);
  switch (tab) {
    case 'aiVoice': {
      const f = forms.aiVoice;
      const up = (p: Partial<typeof f>) => set('aiVoice', { ...f, ...p });
      return (
        <>
          <Choice legend={t('audio.kind')} name="ai-voice-kind" options={['speech', 'song'] as const} value={f.kind} onChange={(kind) => up({ kind })} label={(k) => t(`audio.kind.${k}`)} />
          <VoicePicker value={f.timbreId} onChange={(timbreId) => up({ timbreId })} />
          {f.kind === 'speech' ? (
            <>
              <Text label={t('audio.text')} value={f.text} onChange={(text) => up({ text })} max={LIMITS.textMax} rows={4} testId="audio-text" />
              <Speed value={f.speed} onChange={(speed) => up({ speed })} />
              <EmotionPick value={f.emotion} onChange={(emotion) => up({ emotion })} />
            </>
          ) : (
            <>
              <Choice legend={t('audio.mode')} name="ai-voice-mode" options={GENERATE_MODES} value={f.generateMode} onChange={(generateMode) => up({ generateMode })} label={modeLabel} />
              <Text label={t('audio.prompt')} value={f.prompt} onChange={(prompt) => up({ prompt })} testId="audio-song-prompt" placeholder={t('audio.promptSongHint')} />
              <Text label={t('audio.lyrics')} value={f.lyrics} onChange={(lyrics) => up({ lyrics })} rows={8} testId="audio-song-lyrics" placeholder={t('audio.lyricsHint')} />
            </>
          )}
        </>
      );
    }
    case 'effect': {
      const f = forms.effect;
      return (
        <>
          <Text label={t('audio.prompt')} value={f.prompt} onChange={(prompt) => set('effect', { ...f, prompt })} testId="effect-prompt" placeholder={t('audio.promptEffectHint')} />
          <Seconds label={t('audio.duration')} value={f.duration} range={LIMITS.effect} onChange={(duration) => set('effect', { ...f, duration })} testId="effect-duration" />
        </>
      );
    }
    case 'lyrics': {
      const f = forms.lyrics;
      return (
        <>
          <Text label={t('audio.prompt')} value={f.prompt} onChange={(prompt) => set('lyrics', { ...f, prompt })} testId="lyrics-prompt" placeholder={t('audio.promptLyricsHint')} />
          <Field label={t('audio.title.field')}>{(id) => <input id={id} className="tavern-input" value={f.title} onChange={(e) => set('lyrics', { ...f, title: e.target.value })} />}</Field>
          <Field label={t('timbre.language')}>
            {(id) => (
              <select id={id} className="tavern-input" value={f.language} onChange={(e) => set('lyrics', { ...f, language: e.target.value })}>
                <option value="">{t('audio.languageAuto')}</option>
                {LANGUAGES.map((l) => (
                  <option key={l} value={l}>
                    {t(`timbre.lang.${l}`)}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </>
      );
    }
    case 'music': {
      const f = forms.music;
      const up = (p: Partial<typeof f>) => set('music', { ...f, ...p });
      return (
        <>
          <Choice legend={t('audio.mode')} name="music-mode" options={GENERATE_MODES} value={f.generateMode} onChange={(generateMode) => up({ generateMode })} label={modeLabel} />
          <Text label={t('audio.prompt')} value={f.prompt} onChange={(prompt) => up({ prompt })} testId="music-prompt" placeholder={t('audio.promptSongHint')} />
          {f.generateMode === 'vocalSongs' && (
            <>
              <Text label={t('audio.lyrics')} value={f.lyrics} onChange={(lyrics) => up({ lyrics })} rows={8} testId="music-lyrics" placeholder={t('audio.lyricsHint')} />
              <VoicePicker value={f.timbreId} onChange={(timbreId) => up({ timbreId })} label={t('audio.singer')} />
            </>
          )}
          <Seconds label={t('audio.duration')} value={f.duration} range={LIMITS.music} onChange={(duration) => up({ duration })} testId="music-duration" />
          <Text label={t('audio.negative')} value={f.negativePrompt} onChange={(negativePrompt) => up({ negativePrompt })} rows={2} testId="music-negative" />
        </>
      );
    }
    case 'videoToAudio': {
      const f = forms.videoToAudio;
      return (
        <>
          <VideoSource value={f.videoInfo} onChange={(videoInfo) => set('videoToAudio', { ...f, videoInfo })} />
          <Text label={t('audio.promptOptional')} value={f.prompt} onChange={(prompt) => set('videoToAudio', { ...f, prompt })} testId="v2a-prompt" />
          <Text label={t('audio.negative')} value={f.negativePrompt} onChange={(negativePrompt) => set('videoToAudio', { ...f, negativePrompt })} rows={2} testId="v2a-negative" />
        </>
      );
    }
    case 'lipSync': {
      const f = forms.lipSync;
      const ap = (p: Partial<typeof f.audioParams>) => set('lipSync', { ...f, audioParams: { ...f.audioParams, ...p } });
      return (
        <>
          <FaceSource forms={f} set={(v) => set('lipSync', v)} />
          <Field label={t('audio.videoTask')} hint={t('audio.videoTaskHint')}>
            {(id) => <input id={id} className="tavern-input" value={f.videoInfo.parentTaskId} onChange={(e) => set('lipSync', { ...f, videoInfo: { url: '', parentTaskId: e.target.value } })} />}
          </Field>
          <Choice legend={t('audio.lipSyncTab')} name="lipsync-tab" options={LIP_SYNC_TABS} value={f.lipSyncTab} onChange={(lipSyncTab) => set('lipSync', { ...f, lipSyncTab })} label={(v) => t(`audio.${v}`)} />
          {f.lipSyncTab === 'lipSyncText' ? (
            <>
              <VoicePicker value={f.audioParams.timbre} onChange={(timbre) => ap({ timbre })} />
              <Text label={t('audio.text')} value={f.audioParams.prompt} onChange={(prompt) => ap({ prompt })} max={LIMITS.textMax} testId="lipsync-text" />
              <Speed value={f.audioParams.speed} onChange={(speed) => ap({ speed })} />
              <EmotionPick value={f.audioParams.emotion} onChange={(emotion) => ap({ emotion })} />
            </>
          ) : (
            <AudioClip value={f.audioParams.localAudio} onChange={(localAudio) => ap({ localAudio })} />
          )}
        </>
      );
    }
    case 'addMusic': {
      const f = forms.addMusic;
      const pf = (p: Partial<typeof f.paramsForm>) => set('addMusic', { ...f, paramsForm: { ...f.paramsForm, ...p } });
      return (
        <>
          <VideoSource value={f.videoInfo} onChange={(videoInfo) => set('addMusic', { ...f, videoInfo })} />
          <Text label={t('audio.prompt')} value={f.paramsForm.prompt} onChange={(prompt) => pf({ prompt })} testId="add-music-prompt" placeholder={t('audio.promptSongHint')} />
          <Seconds label={t('audio.duration')} value={f.paramsForm.duration} range={LIMITS.addMusic} onChange={(duration) => pf({ duration })} testId="add-music-duration" />
          <Text label={t('audio.negative')} value={f.paramsForm.negativePrompt} onChange={(negativePrompt) => pf({ negativePrompt })} rows={2} testId="add-music-negative" />
        </>
      );
    }
  }
}
