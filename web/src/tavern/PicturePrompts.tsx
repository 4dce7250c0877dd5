import { useId, useState } from 'react';
import { sendToGenerator } from '../agent/generatorLink';
import { useT } from '../i18n/useT';
import { appStore } from '../state/jotai';
import { tavernApi } from './actions';
import { useErrorText } from './useErrorText';

/**
 * "Suggest picture prompts" (character/agent/recommend_promot) for a saved
 * character: up to three prompts, each handed to the generator (/create) the
 * way the agent page does.
 */
export function PicturePrompts({ characterId }: { characterId: string | null }) {
  const t = useT();
  const errorText = useErrorText();
  const labelId = useId();
  const hintId = useId();
  const [prompts, setPrompts] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function suggest() {
    if (characterId === null) return;
    setBusy(true);
    setError(null);
    try {
      setPrompts(await tavernApi.imagePrompts(characterId));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="picture-prompts" aria-labelledby={labelId} data-testid="picture-prompts">
      <p id={labelId} className="field__label">
        {t('tavern.form.prompts')}
      </p>
      <p id={hintId} className="field__hint">
        {characterId === null ? t('tavern.form.promptsSaveFirst') : t('tavern.form.promptsHint')}
      </p>
      {characterId !== null && (
        <div>
          <button type="button" className="button button--small" aria-describedby={hintId} disabled={busy} onClick={() => void suggest()}>
            {busy ? t('tavern.form.suggestingPrompts') : t('tavern.form.suggestPrompts')}
          </button>
        </div>
      )}
      {error !== null && (
        <p className="tavern__error" role="alert">
          {error}
        </p>
      )}
      {prompts.length > 0 && (
        <ul className="picture-prompts__list" aria-live="polite">
          {prompts.map((p, i) => (
            <li key={p} className="picture-prompts__chip" data-testid="picture-prompt">
              <span className="picture-prompts__text">{p}</span>
              <button
                type="button"
                className="button button--small button--primary"
                aria-label={t('tavern.form.usePromptFor', { index: i + 1 })}
                onClick={() => sendToGenerator(appStore, p)}
              >
                {t('tavern.form.usePrompt')}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
