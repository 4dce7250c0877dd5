// A prompt the agent proposed (a `"""` block): "Use in generator" and "Copy",
// or a typing indicator while the block is still open.
import { showToast } from '../app/toast';
import { useT } from '../i18n/useT';
import { appStore } from '../state/jotai';
import { sendToGenerator } from './generatorLink';
import type { PromptPart } from './promptStream';

export function TypingDots() {
  return (
    <span className="typing" aria-hidden="true">
      <span />
      <span />
      <span />
    </span>
  );
}

export function PromptCard({ part }: { part: PromptPart }) {
  const t = useT();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(part.displayText);
      showToast(appStore, t('agent.copied'));
    } catch {
      showToast(appStore, t('agent.copyFailed'));
    }
  };
  return (
    <figure className={`prompt-card${part.isComplete ? '' : ' prompt-card--typing'}`} data-testid="prompt-card">
      <figcaption className="prompt-card__label">{t('agent.promptCard')}</figcaption>
      <blockquote className="prompt-card__text">{part.displayText}</blockquote>
      {part.isComplete ? (
        <div className="prompt-card__actions">
          <button type="button" className="button button--primary" onClick={() => sendToGenerator(appStore, part.displayText)}>
            {t('agent.useInGenerator')}
          </button>
          <button type="button" className="button" onClick={() => void copy()}>
            {t('agent.copy')}
          </button>
        </div>
      ) : (
        <p className="prompt-card__typing muted" role="status">
          <TypingDots />
          {t('agent.promptTyping')}
        </p>
      )}
    </figure>
  );
}
