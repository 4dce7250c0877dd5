import { useId } from 'react';
import { useT } from '../i18n/useT';

interface Props {
  prompt: string;
  negative: string;
  onChange: (prompt: string, negative: string) => void;
  /** Show the negative prompt (the starter tab hides it). */
  withNegative?: boolean;
}

/** The prompt and negative prompt as labelled text areas. */
export function PromptFields({ prompt, negative, onChange, withNegative = true }: Props) {
  const t = useT();
  const promptId = useId();
  const negativeId = useId();
  return (
    <div className="gen-prompt">
      <div className="field">
        <label htmlFor={promptId}>{t('gen.prompt')}</label>
        <textarea
          id={promptId}
          className="gen-textarea"
          rows={4}
          value={prompt}
          placeholder={t('gen.promptPlaceholder')}
          onChange={(e) => onChange(e.currentTarget.value, negative)}
        />
      </div>
      {withNegative && (
        <div className="field">
          <label htmlFor={negativeId}>{t('gen.negative')}</label>
          <textarea
            id={negativeId}
            className="gen-textarea"
            rows={2}
            value={negative}
            placeholder={t('gen.negativePlaceholder')}
            onChange={(e) => onChange(prompt, e.currentTarget.value)}
          />
        </div>
      )}
    </div>
  );
}
