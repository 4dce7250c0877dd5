import { useState } from 'react';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { sessionBadgesAtom } from './atoms';
import { ConfirmDialog } from './ConfirmDialog';
import { useErrorText } from './useErrorText';
import type { ChatSession } from './model';
import { tavernPath } from './route';

export function dateText(ms: number | null): string {
  return ms === null ? '' : new Date(ms).toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** The chats with one character, newest first; the open one marked; finished replies elsewhere as a badge. */
export function SessionList(props: {
  characterId: string;
  characterName: string;
  sessions: readonly ChatSession[];
  open: string | null;
  onNew: () => void;
  onDelete: (sessionId: string) => void;
  /** Deletes every chat with the character (asked first). */
  onDeleteAll: () => Promise<void>;
  /** A session was chosen (the phone drawer closes). */
  onPick: () => void;
  creating: boolean;
}) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const badges = useAtomValue(sessionBadgesAtom);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [askingAll, setAskingAll] = useState(false);
  return (
    <nav className="sessions" aria-label={t('tavern.chat.sessions', { name: props.characterName })}>
      <button type="button" className="button button--primary sessions__new" onClick={props.onNew} disabled={props.creating}>
        + {t('tavern.chat.newSession')}
      </button>
      <ul className="sessions__list">
        {props.sessions.map((s) => {
          const badge = badges[s.session_id] ?? 0;
          const title = s.title !== '' ? s.title : t('tavern.chat.untitled', { date: dateText(s.create_at) });
          return (
            <li key={s.session_id} className={`sessions__item${s.session_id === props.open ? ' sessions__item--open' : ''}`}>
              <Link
                to={localePath(locale, tavernPath({ view: 'chat', characterId: props.characterId, sessionId: s.session_id }))}
                className="sessions__link"
                aria-current={s.session_id === props.open ? 'page' : undefined}
                onClick={props.onPick}
                replace
              >
                <span className="sessions__title">{title}</span>
                {s.last_message !== '' && <span className="sessions__last">{s.last_message}</span>}
                {badge > 0 && <span className="sessions__badge">{t('tavern.chat.newReplies', { count: badge })}</span>}
              </Link>
              {confirming === s.session_id ? (
                <span className="sessions__confirm">
                  <button type="button" className="button button--danger button--small" onClick={() => props.onDelete(s.session_id)}>
                    {t('tavern.chat.delete')}
                  </button>
                  <button type="button" className="button button--small" onClick={() => setConfirming(null)}>
                    {t('tavern.chat.cancelEdit')}
                  </button>
                </span>
              ) : (
                <button
                  type="button"
                  className="icon-button sessions__delete"
                  aria-label={t('tavern.chat.deleteSession')}
                  title={t('tavern.chat.deleteSession')}
                  onClick={() => setConfirming(s.session_id)}
                >
                  ×
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {props.sessions.length > 0 && (
        <button type="button" className="button button--link sessions__delete-all" aria-haspopup="dialog" onClick={() => setAskingAll(true)}>
          {t('tavern.chat.deleteAll')}
        </button>
      )}
      {askingAll && <DeleteAllDialog name={props.characterName} onConfirm={props.onDeleteAll} onClose={() => setAskingAll(false)} />}
    </nav>
  );
}

/** Asks before session/delete-all: every chat with the character and all their messages go. */
function DeleteAllDialog(props: { name: string; onConfirm: () => Promise<void>; onClose: () => void }) {
  const t = useT();
  const errorText = useErrorText();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function confirm() {
    setPending(true);
    setError(null);
    try {
      await props.onConfirm();
    } catch (e) {
      setError(errorText(e));
      setPending(false);
    }
  }

  return (
    <ConfirmDialog
      title={t('tavern.chat.deleteAllTitle', { name: props.name })}
      message={t('tavern.chat.deleteAllText', { name: props.name })}
      confirmLabel={t('tavern.chat.deleteAllConfirm')}
      variant="danger"
      pending={pending}
      error={error}
      onConfirm={() => void confirm()}
      onCancel={props.onClose}
    />
  );
}
