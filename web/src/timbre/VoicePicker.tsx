// A voice picker: the public voices and the user's own ready voices, with
// the engine's label (so a non-neural formant voice says so); the empty
// choice is the server's default voice.
import { useEffect, useId, useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import { api } from '../app/services';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { listTimbres, NO_FILTERS } from './api';
import type { Timbre } from './api';

/** Public voices, then the user's own ready ones (deduplicated). */
export function useVoices(): { voices: Timbre[]; error: boolean } {
  const loggedIn = useAtomValue(loggedInAtom);
  const [state, setState] = useState<{ voices: Timbre[]; error: boolean }>({ voices: [], error: false });
  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const pub = await listTimbres(api, 'list', NO_FILTERS, null);
        const mine = loggedIn ? await listTimbres(api, 'my', NO_FILTERS, null).catch(() => ({ items: [] as Timbre[] })) : { items: [] as Timbre[] };
        const seen = new Set<string>();
        const voices = [...mine.items.filter((v) => v.status === 'ready'), ...pub.items].filter((v) => !seen.has(v.id) && seen.add(v.id));
        if (live) setState({ voices, error: false });
      } catch {
        if (live) setState({ voices: [], error: true });
      }
    })();
    return () => {
      live = false;
    };
  }, [loggedIn]);
  return state;
}

export function voiceLabel(v: Timbre): string {
  return `${v.name} · ${v.language} · ${v.label}`;
}

export function VoicePicker({ value, onChange, label, testId = 'voice-picker' }: { value: string; onChange: (id: string) => void; label?: string; testId?: string }) {
  const t = useT();
  const id = useId();
  const { voices, error } = useVoices();
  const chosen = voices.find((v) => v.id === value) ?? null;
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        {label ?? t('timbre.voice')}
      </label>
      <select id={id} className="tavern-input" value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId}>
        <option value="">{t('timbre.defaultVoice')}</option>
        {voices.map((v) => (
          <option key={v.id} value={v.id}>
            {voiceLabel(v)}
          </option>
        ))}
      </select>
      {error && <p className="muted gen-small">{t('timbre.listFailed')}</p>}
      {chosen && !chosen.neural && <p className="muted gen-small">{t('timbre.nonNeural')}</p>}
    </div>
  );
}
