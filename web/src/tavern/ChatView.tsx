import { useEffect, useRef, useState } from 'react';
import { showToast } from '../app/toast';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, navigate } from '../router/router';
import { socketStateAtom } from '../socket/atoms';
import { appStore, useAtomValue, useSetAtom } from '../state/jotai';
import { loadMessages, resumeSession, tavernApi, updateLog } from './actions';
import { chatLogsAtom, chatResyncAtom, openSessionAtom, sessionBadgesAtom } from './atoms';
import { Avatar } from './Avatar';
import { ChatComposer } from './ChatComposer';
import { ChatMessages } from './ChatMessages';
import { DatacardsPanel } from './DatacardsPanel';
import { EMPTY_LOG, lastReply, streamingMessage } from './model';
import type { CharacterView, ChatSession } from './model';
import { watchReconnects } from './pushHook';
import { tavernPath } from './route';
import { dateText, SessionList } from './SessionList';
import { PersonaDialog } from './PersonaDialog';
import { SessionSettingsDialog } from './SessionSettings';
import { Suggestions } from './Suggestions';
import { useCharacter } from './useCharacter';
import { useErrorText } from './useErrorText';
import { useSessions } from './useSessions';

/** While a reply runs and no socket is up, its state is read this often instead. */
const POLL_MS = 2_000;

/** Keeps the open session's log in step: first read, resume on reconnect or a gap, a poll while offline. */
function useSessionSync(sessionId: string, streaming: boolean) {
  const errorText = useErrorText();
  const resync = useAtomValue(chatResyncAtom);
  const socketState = useAtomValue(socketStateAtom);
  const setOpen = useSetAtom(openSessionAtom);
  const setBadges = useSetAtom(sessionBadgesAtom);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    setOpen(sessionId);
    setBadges((b) => {
      if (!(sessionId in b)) return b;
      const next = { ...b };
      delete next[sessionId];
      return next;
    });
    if (appStore.get(chatLogsAtom)[sessionId] === undefined) updateLog(sessionId, () => EMPTY_LOG);
    loadMessages(sessionId)
      .then(() => setError(null))
      .catch((e: unknown) => setError(errorText(e)));
    return () => setOpen(null);
  }, [sessionId, setOpen, setBadges, errorText]);

  useEffect(() => watchReconnects(), []);

  useEffect(() => {
    if (resync === 0) return;
    resumeSession(sessionId).catch(() => undefined);
  }, [resync, sessionId]);

  useEffect(() => {
    if (!streaming || socketState === 'online') return;
    const timer = setInterval(() => void resumeSession(sessionId).catch(() => undefined), POLL_MS);
    return () => clearInterval(timer);
  }, [streaming, socketState, sessionId]);

  return error;
}

function ChatPanel({ character, sessionId, session, onSessionChange, onToggleSessions }: {
  character: CharacterView;
  sessionId: string;
  /** The session as listed (null until the list is read). */
  session: ChatSession | null;
  onSessionChange: (session: ChatSession) => void;
  onToggleSessions: () => void;
}) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const log = useAtomValue(chatLogsAtom)[sessionId] ?? EMPTY_LOG;
  const streaming = streamingMessage(log);
  const last = lastReply(log);
  const error = useSessionSync(sessionId, streaming !== null);
  const [text, setText] = useState('');
  const [cardsOpen, setCardsOpen] = useState(false);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [personaOpen, setPersonaOpen] = useState(false);
  const bound = session?.datacard_ids ?? [];
  const defaultTitle = t('tavern.chat.untitled', { date: dateText(session?.create_at ?? null) });

  return (
    <div className={`chat${cardsOpen ? ' chat--cards' : ''}`}>
      <div className="chat__main">
        <header className="chat__head">
          <button type="button" className="icon-button chat__sessions-toggle" aria-label={t('tavern.chat.sessions', { name: character.name })} onClick={onToggleSessions}>
            ☰
          </button>
          <Avatar src={character.avatar} name={character.name} size="sm" />
          <div className="chat__who">
            <h1 className="chat__name">{character.name}</h1>
            <Link to={localePath(locale, tavernPath({ view: 'detail', id: character.id }))} className="chat__about">
              {t('tavern.chat.backToCharacter', { name: character.name })}
            </Link>
          </div>
          <button type="button" className="button button--small chat__settings" aria-haspopup="dialog" disabled={session === null} onClick={() => setSettingsOpen(true)}>
            <svg className="chat__settings-icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">
              <path
                fill="currentColor"
                d="M19.4 13a7.7 7.7 0 0 0 0-2l2.1-1.6-2-3.5-2.5 1a7.3 7.3 0 0 0-1.7-1L15 3h-4l-.4 2.9a7.3 7.3 0 0 0-1.7 1l-2.5-1-2 3.5L6.6 11a7.7 7.7 0 0 0 0 2l-2.1 1.6 2 3.5 2.5-1c.5.4 1.1.7 1.7 1L11 21h4l.4-2.9c.6-.3 1.2-.6 1.7-1l2.5 1 2-3.5L19.4 13ZM13 15.5a3.5 3.5 0 1 1 0-7 3.5 3.5 0 0 1 0 7Z"
                transform="translate(-1 0)"
              />
            </svg>
            <span className="chat__tool-text">{t('tavern.settings.open')}</span>
          </button>
          <button type="button" className={`button button--small${cardsOpen ? ' button--on' : ''}`} aria-expanded={cardsOpen} onClick={() => setCardsOpen((v) => !v)}>
            {t('tavern.datacards.toggle')}
            {bound.length > 0 && <span className="chat__count">{bound.length}</span>}
          </button>
        </header>
        {error !== null && (
          <p className="tavern__error" role="alert">
            {error}
          </p>
        )}
        <ChatMessages sessionId={sessionId} log={log} characterName={character.name} characterAvatar={character.avatar} />
        <div className="chat__foot">
          <Suggestions key={`${last?.msg_id ?? ''}:${last?.state ?? ''}`} sessionId={sessionId} disabled={streaming !== null || !log.loaded} onPick={setText} />
          <ChatComposer sessionId={sessionId} characterName={character.name} text={text} setText={setText} streaming={streaming !== null} />
        </div>
      </div>
      {cardsOpen && (
        <DatacardsPanel
          sessionId={sessionId}
          bound={bound}
          onBoundChange={(ids) => session !== null && onSessionChange({ ...session, datacard_ids: ids })}
          onClose={() => setCardsOpen(false)}
          character={character.is_owner ? { id: character.id, name: character.name } : undefined}
        />
      )}
      {settingsOpen && session !== null && (
        <SessionSettingsDialog
          session={session}
          characterSettings={character.settings}
          defaultTitle={defaultTitle}
          onSaved={onSessionChange}
          onVoice={onSessionChange}
          onClose={() => setSettingsOpen(false)}
          onPersona={() => {
            setSettingsOpen(false);
            setPersonaOpen(true);
          }}
        />
      )}
      {personaOpen && <PersonaDialog onClose={() => setPersonaOpen(false)} />}
    </div>
  );
}

/** `/tavern/chat/{characterId}[/{sessionId}]`: the sessions with a character and the open chat. */
export function ChatView({ characterId, sessionId }: { characterId: string; sessionId: string | null }) {
  const t = useT();
  const errorText = useErrorText();
  const locale = useAtomValue(localeAtom);
  const character = useCharacter(characterId);
  const { sessions, setSessions, error: listError, reload } = useSessions(characterId);
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [sessionsOpen, setSessionsOpen] = useState(false);

  const go = (id: string, replace: boolean) =>
    navigate(appStore, localePath(locale, tavernPath({ view: 'chat', characterId, sessionId: id })), { replace });

  async function newSession() {
    setCreating(true);
    setError(null);
    try {
      const id = await tavernApi.createSession(characterId);
      reload();
      go(id, false);
      setSessionsOpen(false);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setCreating(false);
    }
  }

  // No session named: open the newest, or start the first.
  const autoStarted = useRef(false);
  useEffect(() => {
    if (sessionId !== null || sessions === null) return;
    const newest = sessions[0];
    if (newest) {
      navigate(appStore, localePath(locale, tavernPath({ view: 'chat', characterId, sessionId: newest.session_id })), { replace: true });
      return;
    }
    if (autoStarted.current) return;
    autoStarted.current = true;
    tavernApi
      .createSession(characterId)
      .then((id) => {
        reload();
        navigate(appStore, localePath(locale, tavernPath({ view: 'chat', characterId, sessionId: id })), { replace: true });
      })
      .catch((e: unknown) => setError(errorText(e)));
  }, [sessionId, sessions, characterId, locale, reload, errorText]);

  async function deleteSession(id: string) {
    try {
      await tavernApi.deleteSession(id);
      setSessions((list) => list?.filter((s) => s.session_id !== id) ?? null);
      if (id === sessionId) navigate(appStore, localePath(locale, tavernPath({ view: 'chat', characterId, sessionId: null })), { replace: true });
    } catch (e) {
      setError(errorText(e));
    }
  }

  async function deleteAll() {
    const n = await tavernApi.deleteAllSessions(characterId);
    const gone = new Set((sessions ?? []).map((s) => s.session_id));
    setSessions([]);
    const logs = appStore.get(chatLogsAtom);
    appStore.set(chatLogsAtom, Object.fromEntries(Object.entries(logs).filter(([id]) => !gone.has(id))));
    showToast(appStore, t('tavern.chat.deletedAll', { count: n }));
    navigate(appStore, localePath(locale, tavernPath({ view: 'detail', id: characterId })), { replace: true });
  }

  if (character.status === 'loading') return <p className="tavern__note">{t('tavern.loading')}</p>;
  if (character.status === 'error') return <p className="tavern__error" role="alert">{character.error}</p>;
  const c = character.value;
  if (c === null) return <p className="tavern__empty">{t('tavern.notFound')}</p>;
  const open = sessions?.find((s) => s.session_id === sessionId) ?? null;

  return (
    <div className={`chat-layout${sessionsOpen ? ' chat-layout--sessions' : ''}`} data-testid="chat-view">
      <SessionList
        characterId={characterId}
        characterName={c.name}
        sessions={sessions ?? []}
        open={sessionId}
        creating={creating}
        onNew={() => void newSession()}
        onDelete={(id) => void deleteSession(id)}
        onDeleteAll={deleteAll}
        onPick={() => setSessionsOpen(false)}
      />
      {sessionsOpen && (
        <button type="button" className="chat-layout__backdrop" aria-label={t('tavern.chat.closeSessions')} onClick={() => setSessionsOpen(false)} />
      )}
      {(error ?? listError) !== null && (
        <p className="tavern__error chat-layout__error" role="alert">
          {error ?? listError}
        </p>
      )}
      {sessionId !== null ? (
        <ChatPanel
          key={sessionId}
          character={c}
          sessionId={sessionId}
          session={open}
          onSessionChange={(next) => setSessions((list) => list?.map((s) => (s.session_id === next.session_id ? next : s)) ?? null)}
          onToggleSessions={() => setSessionsOpen((v) => !v)}
        />
      ) : (
        <p className="tavern__note">{t('tavern.chat.starting')}</p>
      )}
    </div>
  );
}
