import { useId, useState } from 'react';
import type { FormEvent, KeyboardEvent } from 'react';
import { useT } from '../i18n/useT';
import { CharCount } from './CharCount';
import { sendMessage, stopReply, tavernApi } from './actions';
import { canUndoPolish } from './polish';
import type { PolishMemo } from './polish';
import { useErrorText } from './useErrorText';

/** Longest message chat/start accepts (characters). */
export const CHAT_MESSAGE_MAX = 4000;

/** The message box: Enter sends, Shift+Enter adds a line; while a reply is written, Stop ends it. */
export function ChatComposer(props: {
  sessionId: string;
  characterName: string;
  text: string;
  setText: (text: string) => void;
  streaming: boolean;
}) {
  const t = useT();
  const errorText = useErrorText();
  const id = useId();
  const hintId = useId();
  const [pending, setPending] = useState(false);
  const [stopping, setStopping] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [polishing, setPolishing] = useState(false);
  const [memo, setMemo] = useState<PolishMemo | null>(null);
  const { text, setText, sessionId } = props;
  const undoable = canUndoPolish(memo, text);
  const length = [...text].length;
  const tooLong = length > CHAT_MESSAGE_MAX;

  async function send() {
    const content = text.trim();
    if (content === '' || tooLong || pending || props.streaming) return;
    setPending(true);
    setError(null);
    setText('');
    try {
      await sendMessage(sessionId, content);
    } catch (err) {
      setText(content);
      setError(errorText(err));
    } finally {
      setPending(false);
    }
  }

  /** Rewrites the draft (message/polish); the draft before stays one click away. */
  async function polish() {
    const before = text;
    if (before.trim() === '' || tooLong || polishing) return;
    setPolishing(true);
    setError(null);
    try {
      const after = await tavernApi.polish(sessionId, before.trim());
      if (after.trim() !== '') {
        setMemo({ before, after });
        setText(after);
      }
    } catch (err) {
      setError(errorText(err));
    } finally {
      setPolishing(false);
    }
  }

  function undoPolish() {
    if (!canUndoPolish(memo, text)) return;
    setText(memo.before);
    setMemo(null);
  }

  async function stop() {
    setStopping(true);
    try {
      await stopReply(sessionId);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setStopping(false);
    }
  }

  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    }
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    void send();
  }

  const label = t('tavern.chat.composer', { name: props.characterName });
  return (
    <form className="chat-composer" onSubmit={onSubmit}>
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <textarea
        id={id}
        className="chat-composer__input"
        value={text}
        rows={1}
        placeholder={label}
        aria-describedby={hintId}
        aria-invalid={tooLong}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        readOnly={polishing}
      />
      <div className="chat-composer__tools">
        {undoable ? (
          <button type="button" className="button button--small" onClick={undoPolish}>
            <span aria-hidden="true">↶</span> {t('tavern.chat.undoPolish')}
          </button>
        ) : (
          <button
            type="button"
            className="button button--small"
            title={t('tavern.chat.polishHint')}
            disabled={polishing || pending || tooLong || text.trim() === ''}
            onClick={() => void polish()}
          >
            <span aria-hidden="true">✎</span> <span className="chat__tool-text">{polishing ? t('tavern.chat.polishing') : t('tavern.chat.polish')}</span>
          </button>
        )}
      </div>
      {props.streaming ? (
        <button type="button" className="button chat-composer__stop" onClick={() => void stop()} disabled={stopping}>
          <span className="chat-composer__stop-icon" aria-hidden="true" /> {t('tavern.chat.stop')}
        </button>
      ) : (
        <button type="submit" className="button button--primary" disabled={pending || polishing || tooLong || text.trim() === ''}>
          {t('tavern.chat.send')}
        </button>
      )}
      <p id={hintId} className="chat-composer__hint">
        <span className="chat-composer__hint-text">{t('tavern.chat.composerHint')}</span>{' '}
        <CharCount length={length} max={CHAT_MESSAGE_MAX} messageKey="tavern.chat.length" />
      </p>
      {error !== null && (
        <p className="tavern__error chat-composer__error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
