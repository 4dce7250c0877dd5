// `/create/audio` (spec 2 §1, §3): the audio tabs (aiVoice, sound effect,
// lyrics, music, video to audio, lip-sync, add music) with the spec's
// defaults, the generate press, speech made on the page in waveform players,
// and the task list (audio tasks show their results there).
import { useId } from 'react';
import { tokenAtom } from '../account/atoms';
import { Link } from '../app/Link';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { TIMBRE_PATH } from '../timbre/route';
import { api } from '../app/services';
import { showToast } from '../app/toast';
import { isMessageKey } from '../i18n/messages';
import { useT } from '../i18n/useT';
import type { Translate } from '../i18n/useT';
import { appStore, useAtom, useAtomValue, useSetAtom } from '../state/jotai';
import { TaskPanel, trackTaskAtom } from '../tasks';
import { audioBusyAtom, audioFormsAtom, audioProblemAtom, audioTabAtom, lyricsAtom, speechMadeAtom } from './atoms';
import type { AudioProblem } from './atoms';
import { AudioFields } from './AudioFields';
import { generateAudio } from './generate';
import { AUDIO_TABS } from './model';
import { WaveformPlayer } from './WaveformPlayer';
import '../generator/generator.css';
import './audio.css';

function problemText(t: Translate, p: AudioProblem): string {
  if (p.key !== null && isMessageKey(p.key)) return t(p.key);
  return p.text || (p.key ?? '');
}

function Tabs({ panelId }: { panelId: string }) {
  const t = useT();
  const [tab, setTab] = useAtom(audioTabAtom);
  const setProblem = useSetAtom(audioProblemAtom);
  return (
    <div className="gen-tabs audio-tabs" role="tablist" aria-label={t('audio.tabs')}>
      {AUDIO_TABS.map((id) => (
        <button
          key={id}
          type="button"
          role="tab"
          id={`audio-tab-${id}`}
          data-testid={`audio-tab-${id}`}
          className={id === tab ? 'gen-tabs__tab gen-tabs__tab--active' : 'gen-tabs__tab'}
          aria-selected={id === tab}
          aria-controls={panelId}
          onClick={() => {
            setTab(id);
            setProblem(null);
          }}
        >
          {t(`audio.tab.${id}`)}
        </button>
      ))}
    </div>
  );
}

function Bar() {
  const t = useT();
  const tab = useAtomValue(audioTabAtom);
  const busy = useAtomValue(audioBusyAtom);
  const problem = useAtomValue(audioProblemAtom);
  const token = useAtomValue(tokenAtom);
  const forms = useAtomValue(audioFormsAtom);
  const trackTask = useSetAtom(trackTaskAtom);
  const label =
    tab === 'aiVoice' && forms.aiVoice.kind === 'speech' ? t('audio.speak') : tab === 'lyrics' ? t('audio.writeLyrics') : t('audio.generate');
  return (
    <div className="gen-bar">
      {problem && (
        <p className="form-error" role="alert" data-testid="audio-problem" data-key={problem.key ?? ''}>
          {problemText(t, problem)}
        </p>
      )}
      <div className="gen-bar__row">
        <button
          type="submit"
          className="button button--primary gen-bar__go"
          disabled={busy}
          aria-busy={busy}
          data-testid="audio-generate"
          onClick={() =>
            void generateAudio({
              store: appStore,
              api,
              tab,
              token,
              onTask: (id) => {
                showToast(appStore, t('CreateSuccess'));
                trackTask(id);
              },
            })
          }
        >
          {busy ? t('audio.working') : label}
        </button>
      </div>
    </div>
  );
}

function SpeechMade() {
  const t = useT();
  const made = useAtomValue(speechMadeAtom);
  if (made.length === 0) return null;
  return (
    <section className="panel audio-speech" aria-label={t('audio.speechMade')} data-testid="speech-made">
      <h2 className="gen-form__title">{t('audio.speechMade')}</h2>
      <ol className="audio-speech__list">
        {made.map((s) => (
          <li key={s.id} className="audio-speech__item">
            <p className="audio-speech__text">{s.text}</p>
            <WaveformPlayer src={s.url} engine={s.engine} testId="speech-player" />
          </li>
        ))}
      </ol>
    </section>
  );
}

function Lyrics() {
  const t = useT();
  const lyrics = useAtomValue(lyricsAtom);
  const setForms = useSetAtom(audioFormsAtom);
  const setTab = useSetAtom(audioTabAtom);
  if (lyrics.status === 'idle') return null;
  return (
    <section className="panel audio-lyrics" aria-live="polite" aria-busy={lyrics.status === 'streaming'} data-testid="lyrics-out" data-status={lyrics.status}>
      {lyrics.title && <h2 className="gen-form__title">{lyrics.title}</h2>}
      <pre className="audio-lyrics__text">{lyrics.text}</pre>
      {lyrics.status === 'done' && (
        <button
          type="button"
          className="button"
          data-testid="lyrics-use"
          onClick={() => {
            setForms((f) => ({ ...f, music: { ...f.music, lyrics: lyrics.text, generateMode: 'vocalSongs' } }));
            setTab('music');
          }}
        >
          {t('audio.useLyrics')}
        </button>
      )}
    </section>
  );
}

export function AudioPage() {
  const t = useT();
  const panelId = useId();
  const tab = useAtomValue(audioTabAtom);
  const locale = useAtomValue(localeAtom);
  return (
    <section className="generator" aria-label={t('audio.title')}>
      <div className="gen audio">
        <div className="gen__main">
          <header className="gen__header">
            <h1>{t('audio.title')}</h1>
            <Link to={localePath(locale, TIMBRE_PATH)} className="button" data-testid="open-voices">
              {t('timbre.title')}
            </Link>
            <p className="gen__note">{t('audio.note')}</p>
          </header>
          <Tabs panelId={panelId} />
          <form
            id={panelId}
            className="gen-form panel"
            role="tabpanel"
            aria-labelledby={`audio-tab-${tab}`}
            data-tab={tab}
            noValidate
            onSubmit={(e) => e.preventDefault()}
          >
            <h2 className="gen-form__title">{t(`audio.tab.${tab}`)}</h2>
            <p className="muted gen-small gen-form__hint">{t(`audio.hint.${tab}`)}</p>
            <AudioFields key={tab} tab={tab} />
            <Bar />
          </form>
          <SpeechMade />
          <Lyrics />
        </div>
        <TaskPanel />
      </div>
    </section>
  );
}
