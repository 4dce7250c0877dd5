import { useState } from 'react';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { tavernApi } from './actions';
import { Avatar } from './Avatar';
import { splitPreview } from './extras';
import type { PreviewDraft, PreviewItem } from './extras';
import { useErrorText } from './useErrorText';
import { useLoaded } from './useLoaded';

function Lines({ items, name, avatar }: { items: PreviewItem[]; name: string; avatar: string }) {
  const t = useT();
  return (
    <ol className="preview__lines">
      {items.map((item, i) => {
        const mine = item.role === 'user';
        return (
          <li key={i} className={`bubble bubble--${mine ? 'user' : 'assistant'}`} data-testid="preview-line" data-role={item.role} data-kind={item.kind}>
            {!mine && <Avatar src={avatar} name={name} size="sm" />}
            <div className="bubble__column">
              <span className="bubble__who">{mine ? t('tavern.chat.you') : name}</span>
              <div className="bubble__body">
                <p className="bubble__text">{item.content}</p>
              </div>
            </div>
          </li>
        );
      })}
    </ol>
  );
}

/** How the unsaved draft reads in a chat (tavern-pro/preview/list): the scene, the greeting and the example dialogue as bubbles. */
export function PreviewDialog({ draft, avatar, onClose }: { draft: PreviewDraft; avatar: string; onClose: () => void }) {
  const t = useT();
  const errorText = useErrorText();
  // The draft as it was when the dialog opened.
  const [body] = useState(draft);
  const name = body.name.trim();
  const preview = useLoaded(() => tavernApi.preview(body), [body], null);
  const error = preview.failed ? errorText(preview.error) : null;

  const parts = preview.value === null ? null : splitPreview(preview.value);
  return (
    <Dialog title={t('tavern.form.previewTitle', { name })} closeLabel={t('tavern.dialog.close')} onClose={onClose} className="tavern-dialog preview-dialog">
      <div className="preview" data-testid="preview" aria-busy={preview.loading}>
        <p className="field__hint">{t('tavern.form.previewUnsaved')}</p>
        {preview.loading && <p className="tavern__note">{t('tavern.form.previewLoading')}</p>}
        {error !== null && (
          <p className="tavern__error" role="alert">
            {error}
          </p>
        )}
        {parts !== null && parts.scenario.length > 0 && (
          <section className="preview__part">
            <h3 className="preview__heading">{t('tavern.form.previewScene')}</h3>
            {parts.scenario.map((s, i) => (
              <p key={i} className="preview__scene" data-testid="preview-scene">
                {s.content}
              </p>
            ))}
          </section>
        )}
        {parts !== null && parts.greeting.length > 0 && (
          <section className="preview__part">
            <h3 className="preview__heading">{t('tavern.form.previewGreeting')}</h3>
            <Lines items={parts.greeting} name={name} avatar={avatar} />
          </section>
        )}
        {parts !== null && parts.example.length > 0 && (
          <section className="preview__part">
            <h3 className="preview__heading">{t('tavern.form.previewExample')}</h3>
            <Lines items={parts.example} name={name} avatar={avatar} />
          </section>
        )}
        {parts !== null && parts.greeting.length === 0 && parts.example.length === 0 && <p className="tavern__empty">{t('tavern.form.previewEmpty')}</p>}
      </div>
      <div className="tavern-dialog__buttons">
        <button type="button" className="button" onClick={onClose}>
          {t('tavern.dialog.close')}
        </button>
      </div>
    </Dialog>
  );
}
