import { useState } from 'react';
import { useT } from '../../i18n/useT';
import { PromptEditor } from './PromptEditor';

/** `/{locale}/prompt-editor`: the editor on its own, for building a prompt to copy elsewhere. */
export function PromptEditorPage() {
  const t = useT();
  const [texts, setTexts] = useState({ prompt: '', negative: '' });
  return (
    <section className="prompt-editor-page">
      <h1>{t('promptEditor.title')}</h1>
      <p className="muted">{t('promptEditor.pageIntro')}</p>
      <PromptEditor
        restore
        value={texts.prompt}
        negative={texts.negative}
        onChange={(prompt, negative) => setTexts({ prompt, negative })}
      />
    </section>
  );
}
