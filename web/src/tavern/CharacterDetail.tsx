import { useState } from 'react';
import { loggedInAtom, loginDialogAtom } from '../account/atoms';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, navigate } from '../router/router';
import { appStore, useAtomValue, useSetAtom } from '../state/jotai';
import { tavernApi } from './actions';
import { Avatar } from './Avatar';
import { ConfirmDialog } from './ConfirmDialog';
import { ExportCard } from './ExportCard';
import { answeringModel } from './extras';
import type { CharacterView } from './model';
import { ReportDialog } from './ReportDialog';
import { tavernPath } from './route';
import { useCharacter } from './useCharacter';
import { useErrorText } from './useErrorText';
import { useLoaded } from './useLoaded';

function Section({ title, text }: { title: string; text: string }) {
  if (text.trim() === '') return null;
  return (
    <section className="character__section">
      <h2>{title}</h2>
      <p className="character__text">{text}</p>
    </section>
  );
}

function Actions({ c }: { c: CharacterView }) {
  const t = useT();
  const errorText = useErrorText();
  const locale = useAtomValue(localeAtom);
  const loggedIn = useAtomValue(loggedInAtom);
  const setLoginDialog = useSetAtom(loginDialogAtom);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  const [reporting, setReporting] = useState(false);

  async function startChat() {
    if (!loggedIn) {
      setLoginDialog({ open: true, step: 'login' });
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const sessionId = await tavernApi.createSession(c.id);
      navigate(appStore, localePath(locale, tavernPath({ view: 'chat', characterId: c.id, sessionId })));
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  }

  async function remove() {
    setBusy(true);
    setError(null);
    try {
      await tavernApi.remove(c.id);
      navigate(appStore, localePath(locale, tavernPath({ view: 'mine' })), { replace: true });
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
      setAsking(false);
    }
  }

  return (
    <div className="character__actions">
      <button type="button" className="button button--primary" disabled={busy} onClick={() => void startChat()}>
        {t('tavern.detail.chat')}
      </button>
      {loggedIn && (
        <Link to={localePath(locale, tavernPath({ view: 'chat', characterId: c.id, sessionId: null }))} className="button">
          {t('tavern.detail.continue')}
        </Link>
      )}
      {c.is_owner && (
        <Link to={localePath(locale, tavernPath({ view: 'edit', id: c.id }))} className="button">
          {t('tavern.detail.edit')}
        </Link>
      )}
      {loggedIn && <ExportCard id={c.id} />}
      {c.is_owner && (
        <button type="button" className="button button--danger" aria-haspopup="dialog" onClick={() => setAsking(true)}>
          {t('tavern.detail.delete')}
        </button>
      )}
      {!c.is_owner && c.published && (
        <button
          type="button"
          className="button character__report"
          aria-haspopup="dialog"
          aria-label={t('tavern.report.openFor', { name: c.name })}
          onClick={() => (loggedIn ? setReporting(true) : setLoginDialog({ open: true, step: 'login' }))}
        >
          {t('tavern.report.open')}
        </button>
      )}
      {reporting && <ReportDialog characterId={c.id} name={c.name} onClose={() => setReporting(false)} />}
      {asking && (
        <ConfirmDialog
          title={t('tavern.detail.deleteTitle', { name: c.name })}
          message={t('tavern.detail.confirmDelete', { name: c.name })}
          confirmLabel={t('tavern.detail.delete')}
          variant="danger"
          pending={busy}
          onConfirm={() => void remove()}
          onCancel={() => setAsking(false)}
        />
      )}
      {error !== null && (
        <p className="tavern__error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** "Replies are written by …": the model that answers chats (character/model_list); nothing when it cannot be read. */
function ModelNote() {
  const t = useT();
  const model = useLoaded(() => tavernApi.models().then(answeringModel), [], null).value;
  if (model === null) return null;
  return (
    <p className="character__model bubble__model" data-testid="character-model">
      {t('tavern.detail.model', { label: model.label })}
      {!model.neural && <span className="bubble__not-neural">{t('tavern.chat.notNeural')}</span>}
    </p>
  );
}

/** A character's page: picture, description, persona, greeting; chat, edit and card download. */
export function CharacterDetail({ id }: { id: string }) {
  const t = useT();
  const state = useCharacter(id);
  if (state.status === 'loading') return <p className="tavern__note">{t('tavern.loading')}</p>;
  if (state.status === 'error') return <p className="tavern__error" role="alert">{state.error}</p>;
  const c = state.value;
  if (c === null) return <p className="tavern__empty">{t('tavern.notFound')}</p>;
  return (
    <article className="character" data-testid="character-detail">
      <div className="character__hero">
        <Avatar src={c.avatar} name={c.name} size="lg" />
        <div className="character__intro">
          <h2 className="character__name">{c.name}</h2>
          <p className="character__meta">
            {c.owner.name !== '' && <span>{t('tavern.card.by', { name: c.owner.name })}</span>}
            <span>{t(`tavern.type.${c.character_type}`)}</span>
            <span>{t(`tavern.gender.${c.gender}`)}</span>
            <span>{t('tavern.card.chats', { count: c.chat_count })}</span>
          </p>
          {c.tags.length > 0 && (
            <ul className="role-card__tags" aria-label={t('tavern.form.tags')}>
              {c.tags.map((tag) => (
                <li key={tag}>{tag}</li>
              ))}
            </ul>
          )}
          {c.description !== '' && <p className="character__text">{c.description}</p>}
          {!c.published && <p className="tavern__note">{t('tavern.detail.draftNote')}</p>}
          <ModelNote />
          <Actions c={c} />
        </div>
      </div>
      <Section title={t('tavern.form.persona')} text={c.persona} />
      <Section title={t('tavern.detail.scenario')} text={c.scenario} />
      <Section title={t('tavern.detail.greeting')} text={c.greeting} />
      <Section title={t('tavern.form.exampleDialogue')} text={c.example_dialogue} />
      <Section title={t('tavern.detail.notes')} text={c.creator_notes} />
    </article>
  );
}
