import { useState } from 'react';
import { GeneratorPromptTools } from '../agent/GeneratorPromptTools';
import { useT } from '../i18n/useT';
import { PromptEditor } from '../prompt/ui';
import { PromptFields } from './PromptFields';
import { useWorkspace } from './useWorkspace';

/**
 * The prompt of the active tab: labelled text areas, or the prompt editor
 * (words as chips, groups, presets, both dialects, the dictionary pad). The
 * promptStudio tab always shows the editor; the other text tabs can switch
 * to it.
 */
export function PromptInput({ withNegative = true, editor = false }: { withNegative?: boolean; editor?: boolean }) {
  const t = useT();
  const { config, update } = useWorkspace();
  const [words, setWords] = useState(false);
  const onChange = (prompt: string, negative: string) => update({ prompt, negative });
  const showEditor = editor || words;
  return (
    <div className="gen-prompt-input">
      {!editor && withNegative && (
        <button type="button" className="button button--link gen-prompt-input__toggle" aria-pressed={words} onClick={() => setWords((w) => !w)}>
          {words ? t('gen.textEditor') : t('gen.wordEditor')}
        </button>
      )}
      {showEditor ? (
        <PromptEditor value={config.prompt} negative={config.negative} onChange={onChange} readUrl={editor} />
      ) : (
        <PromptFields prompt={config.prompt} negative={config.negative} withNegative={withNegative} onChange={onChange} />
      )}
      <GeneratorPromptTools />
    </div>
  );
}
