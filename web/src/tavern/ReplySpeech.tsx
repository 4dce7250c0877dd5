// A spoken reply's play control in its bubble (autoplayed once when the user
// turned autoplay on and the speech just arrived), or a quiet notice when the
// reply could not be spoken; and the session's voice picker for the chat
// settings (`character/session/timbre/set`, saved at once).
import { useEffect, useRef, useState } from 'react';
import { api } from '../app/services';
import { useT } from '../i18n/useT';
import { useAtom, useAtomValue } from '../state/jotai';
import { VoicePicker } from '../timbre/VoicePicker';
import { errorText } from '../timbre/errors';
import { chatAutoplayAtom, replySpeechAtom, SESSION_TIMBRE_PATH } from './speech';

/** Speech younger than this is "just arrived" (autoplay); older speech waits for a press. */
const FRESH_MS = 15_000;

export function ReplySpeechControl({ msgId }: { msgId: string }) {
  const t = useT();
  const speech = useAtomValue(replySpeechAtom)[msgId];
  const autoplay = useAtomValue(chatAutoplayAtom);
  const ref = useRef<HTMLAudioElement>(null);
  const started = useRef(false);
  useEffect(() => {
    if (!speech || speech.state !== 'ready' || !autoplay || started.current) return;
    if (Date.now() - speech.at > FRESH_MS) return;
    started.current = true;
    void ref.current?.play().catch(() => {
      // The browser refused autoplay (no user gesture yet): the control stays.
    });
  }, [speech, autoplay]);
  if (!speech) return null;
  if (speech.state === 'failed') {
    return (
      <p className="muted gen-small" data-testid="message-speech-failed" title={speech.msg}>
        {t('tavern.voice.failed')}
      </p>
    );
  }
  return (
    <div className="message-speech" data-testid="message-speech">
      <audio ref={ref} src={speech.url} controls preload="auto" aria-label={t('tavern.voice.play')} data-testid="message-speech-audio" />
    </div>
  );
}

export function SessionVoice({ sessionId, timbreId, onSaved }: { sessionId: string; timbreId: string; onSaved: (timbreId: string) => void }) {
  const t = useT();
  const [value, setValue] = useState(timbreId);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const [autoplay, setAutoplay] = useAtom(chatAutoplayAtom);
  async function choose(id: string) {
    const before = value;
    setValue(id);
    setNote(null);
    try {
      await api.post(SESSION_TIMBRE_PATH, { session_id: sessionId, timbre_id: id });
      setNote({ ok: true, text: t('tavern.voice.set') });
      onSaved(id);
    } catch (e) {
      setValue(before);
      setNote({ ok: false, text: errorText(t, e) });
    }
  }
  return (
    <fieldset className="tavern-voice" data-testid="session-voice">
      <legend className="field__label">{t('tavern.voice.title')}</legend>
      <p className="field__hint">{t('tavern.voice.hint')}</p>
      <VoicePicker value={value} onChange={(id) => void choose(id)} label={t('tavern.voice.title')} testId="session-voice-picker" />
      <label className="audio-choice__opt">
        <input type="checkbox" checked={autoplay} onChange={(e) => setAutoplay(e.target.checked)} data-testid="session-voice-autoplay" /> {t('tavern.voice.autoplay')}
      </label>
      {note && (
        <p className={note.ok ? 'muted gen-small' : 'tavern__error'} role={note.ok ? 'status' : 'alert'}>
          {note.text}
        </p>
      )}
    </fieldset>
  );
}
