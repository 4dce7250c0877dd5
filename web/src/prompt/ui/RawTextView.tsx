import { useId, useState } from 'react';
import { useT } from '../../i18n/useT';
import type { Dialect } from '../types';
import type { PromptTexts } from './model';

export interface RawTextViewProps {
  texts: PromptTexts;
  dialect: Dialect;
  onInput(prompt: string, negative: string): void;
}

/**
 * The prompt as text, always in step with the chips: typing re-parses it into
 * chips at once; while a field has focus it keeps what was typed (so a
 * trailing comma is not normalised away), and shows the rendered text again
 * when it loses focus.
 */
export function RawTextView({ texts, dialect, onInput }: RawTextViewProps) {
  const t = useT();
  const promptId = useId();
  const negativeId = useId();
  const [draft, setDraft] = useState<PromptTexts | null>(null);
  const shown = draft ?? texts;

  function change(next: PromptTexts) {
    setDraft(next);
    onInput(next.prompt, dialect === 'bot' ? '' : next.negative);
  }

  return (
    <section className="prompt-raw" aria-label={t('promptEditor.rawText')}>
      <label htmlFor={promptId} className="prompt-raw__label">
        {t('promptEditor.rawPrompt')}
      </label>
      <textarea
        id={promptId}
        className="prompt-raw__text"
        rows={3}
        value={shown.prompt}
        spellCheck={false}
        onFocus={() => setDraft(texts)}
        onBlur={() => setDraft(null)}
        onChange={(e) => change({ prompt: e.target.value, negative: shown.negative })}
      />
      {dialect === 'webui' ? (
        <>
          <label htmlFor={negativeId} className="prompt-raw__label">
            {t('promptEditor.rawNegative')}
          </label>
          <textarea
            id={negativeId}
            className="prompt-raw__text"
            rows={2}
            value={shown.negative}
            spellCheck={false}
            onFocus={() => setDraft(texts)}
            onBlur={() => setDraft(null)}
            onChange={(e) => change({ prompt: shown.prompt, negative: e.target.value })}
          />
        </>
      ) : (
        <p className="prompt-raw__note muted">{t('promptEditor.rawBotNegativeNote')}</p>
      )}
    </section>
  );
}
