import { useEffect, useId, useState } from 'react';
import type { FormEvent } from 'react';
import { useT } from '../i18n/useT';
import { tavernApi } from './actions';
import { ConfirmDialog } from './ConfirmDialog';
import { ImportDocument } from './ImportDocument';
import type { Datacard } from './model';
import { useErrorText } from './useErrorText';

const TITLE_MAX = 64;
const CONTENT_MAX = 8000;

function DatacardForm({ card, onSave, onCancel }: { card: Datacard | null; onSave: (title: string, content: string) => Promise<void>; onCancel: () => void }) {
  const t = useT();
  const titleId = useId();
  const contentId = useId();
  const [title, setTitle] = useState(card?.title ?? '');
  const [content, setContent] = useState(card?.content ?? '');
  const [busy, setBusy] = useState(false);
  const invalid = title.trim() === '' || [...title].length > TITLE_MAX || [...content].length > CONTENT_MAX;

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (invalid) return;
    setBusy(true);
    try {
      await onSave(title.trim(), content.trim());
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="datacard-form" onSubmit={(e) => void onSubmit(e)}>
      <label htmlFor={titleId} className="field__label">
        {t('tavern.datacards.titleField')}
      </label>
      <input id={titleId} className="tavern-input" value={title} maxLength={TITLE_MAX} onChange={(e) => setTitle(e.target.value)} />
      <label htmlFor={contentId} className="field__label">
        {t('tavern.datacards.content')}
      </label>
      <textarea id={contentId} className="tavern-input" rows={5} value={content} onChange={(e) => setContent(e.target.value)} />
      <span className="field__hint">{t('tavern.form.count', { length: [...content].length, max: CONTENT_MAX })}</span>
      <div className="datacard-form__bar">
        <button type="button" className="button button--small" onClick={onCancel}>
          {t('tavern.datacards.cancel')}
        </button>
        <button type="submit" className="button button--primary button--small" disabled={invalid || busy}>
          {t('tavern.datacards.save')}
        </button>
      </div>
    </form>
  );
}

/**
 * The user's datacards: create, edit, delete, bind to (or unbind from) the
 * open chat, and import a document as datacards for the chat's character.
 */
export function DatacardsPanel({
  sessionId,
  bound,
  onBoundChange,
  onClose,
  character,
}: {
  sessionId: string;
  bound: readonly string[];
  onBoundChange: (ids: string[]) => void;
  onClose: () => void;
  character?: { id: string; name: string } | undefined;
}) {
  const t = useT();
  const errorText = useErrorText();
  const [cards, setCards] = useState<Datacard[] | null>(null);
  const [editing, setEditing] = useState<string | 'new' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Datacard | null>(null);
  const [imported, setImported] = useState<readonly string[]>([]);

  useEffect(() => {
    let stale = false;
    tavernApi
      .datacards()
      .then((list) => {
        if (!stale) setCards(list);
      })
      .catch((e: unknown) => {
        if (!stale) setError(errorText(e));
      });
    return () => {
      stale = true;
    };
  }, [errorText]);

  async function run(f: () => Promise<void>) {
    setError(null);
    try {
      await f();
    } catch (e) {
      setError(errorText(e));
    }
  }

  const reload = async () => setCards(await tavernApi.datacards());

  // A document's cards: listed first (in document order), marked, editable.
  const onImported = (ids: string[]) => {
    setImported(ids);
    void run(reload);
  };
  const order = new Map(imported.map((id, i) => [id, i]));
  const shown = cards === null ? null : [...cards.filter((c) => order.has(c.id)).sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0)), ...cards.filter((c) => !order.has(c.id))];

  const save = (card: Datacard | null) => (title: string, content: string) =>
    run(async () => {
      if (card === null) {
        const id = await tavernApi.createDatacard(title, content);
        if (id !== '') {
          await tavernApi.bindDatacard(sessionId, id);
          onBoundChange([...bound, id]);
        }
      } else {
        await tavernApi.editDatacard(card.id, title, content);
      }
      setEditing(null);
      await reload();
    });

  // The box follows the click at once; a refused change puts it back.
  const toggle = async (card: Datacard, on: boolean) => {
    const before = [...bound];
    onBoundChange(on ? [...bound.filter((x) => x !== card.id), card.id] : bound.filter((x) => x !== card.id));
    setError(null);
    try {
      if (on) await tavernApi.bindDatacard(sessionId, card.id);
      else await tavernApi.unbindDatacard(sessionId, card.id);
    } catch (e) {
      onBoundChange(before);
      setError(errorText(e));
    }
  };

  const remove = (card: Datacard) => {
    setDeleting(null);
    void run(async () => {
      await tavernApi.deleteDatacard(card.id);
      onBoundChange(bound.filter((x) => x !== card.id));
      await reload();
    });
  };

  return (
    <aside className="datacards" aria-label={t('tavern.datacards.title')} data-testid="datacards-panel">
      <div className="datacards__head">
        <h2>{t('tavern.datacards.title')}</h2>
        <button type="button" className="icon-button" aria-label={t('tavern.datacards.close')} onClick={onClose}>
          ×
        </button>
      </div>
      <p className="tavern__note">{t('tavern.datacards.hint')}</p>
      {error !== null && (
        <p className="tavern__error" role="alert">
          {error}
        </p>
      )}
      {cards === null && error === null && <p className="tavern__note">{t('tavern.loading')}</p>}
      {cards !== null && cards.length === 0 && editing === null && <p className="tavern__note">{t('tavern.datacards.empty')}</p>}
      {character !== undefined && <ImportDocument characterId={character.id} characterName={character.name} onImported={onImported} />}
      <ul className="datacards__list">
        {shown?.map((card) =>
          editing === card.id ? (
            <li key={card.id} className="datacard">
              <DatacardForm card={card} onSave={save(card)} onCancel={() => setEditing(null)} />
            </li>
          ) : (
            <li key={card.id} className="datacard">
              <label className="field-check">
                <input type="checkbox" checked={bound.includes(card.id)} onChange={(e) => void toggle(card, e.target.checked)} />
                <span className="datacard__title">{card.title}</span>
              </label>
              {bound.includes(card.id) && <span className="datacard__bound">{t('tavern.datacards.bound')}</span>}
              {order.has(card.id) && (
                <span className="datacard__bound" data-testid="rag-made">
                  {t('rag.made')}
                </span>
              )}
              {card.content !== '' && <p className="datacard__content">{card.content}</p>}
              <div className="datacard__bar">
                <button type="button" className="button button--small" onClick={() => setEditing(card.id)}>
                  {t('tavern.datacards.edit')}
                </button>
                <button type="button" className="button button--small button--danger" aria-haspopup="dialog" onClick={() => setDeleting(card)}>
                  {t('tavern.datacards.delete')}
                </button>
              </div>
            </li>
          ),
        )}
      </ul>
      {editing === 'new' ? (
        <DatacardForm card={null} onSave={save(null)} onCancel={() => setEditing(null)} />
      ) : (
        <button type="button" className="button" onClick={() => setEditing('new')}>
          + {t('tavern.datacards.new')}
        </button>
      )}
      {deleting !== null && (
        <ConfirmDialog
          title={t('tavern.datacards.deleteTitle', { title: deleting.title })}
          message={t('tavern.datacards.confirmDelete')}
          confirmLabel={t('tavern.datacards.delete')}
          variant="danger"
          onConfirm={() => remove(deleting)}
          onCancel={() => setDeleting(null)}
        />
      )}
    </aside>
  );
}
