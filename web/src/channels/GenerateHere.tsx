import { useState } from 'react';
import type { FormEvent } from 'react';
import { useT } from '../i18n/useT';
import { generateInChannel } from './actions';
import { CHANNEL_PROMPT_MAX } from './shared';
import { useErrorText } from './useErrorText';

/** "Generate here": a compact prompt box that starts a text-to-image task every member sees. */
export function GenerateHere({ channelId }: { channelId: string }) {
  const t = useT();
  const errorText = useErrorText();
  const [prompt, setPrompt] = useState('');
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ready = prompt.trim() !== '' && !pending;

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!ready) return;
    setPending(true);
    setError(null);
    try {
      await generateInChannel(channelId, prompt);
      setPrompt('');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setPending(false);
    }
  }

  return (
    <form className="generate-here" onSubmit={(e) => void submit(e)} data-testid="generate-here">
      <label className="generate-here__label">
        <span className="visually-hidden">{t('channels.generate.prompt')}</span>
        <input
          className="generate-here__input"
          type="text"
          value={prompt}
          maxLength={CHANNEL_PROMPT_MAX}
          placeholder={t('channels.generate.placeholder')}
          onChange={(e) => setPrompt(e.target.value)}
        />
      </label>
      <button type="submit" className="button button--primary" disabled={!ready} aria-busy={pending}>
        {t('channels.generate.go')}
      </button>
      {error !== null && (
        <p className="channels__error generate-here__error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
