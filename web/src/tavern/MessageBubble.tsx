import { useId, useState } from 'react';
import { showToast } from '../app/toast';
import { useT } from '../i18n/useT';
import { appStore } from '../state/jotai';
import { continueReply, deleteMessage, editMessage, likeMessage, regenerate, tavernApi } from './actions';
import { Avatar } from './Avatar';
import { ConfirmDialog } from './ConfirmDialog';
import type { ChatMessage } from './model';
import { ReplySpeechControl } from './ReplySpeech';

/** A thumb, up (like) or down (dislike), drawn so it shows without an emoji font. */
function Thumb({ down }: { down: boolean }) {
  return (
    <svg className="bubble__icon" viewBox="0 0 24 24" width="14" height="14" aria-hidden="true" style={down ? { transform: 'rotate(180deg)' } : undefined}>
      <path
        d="M7 10v11H3V10h4Zm2 11h8.3a2 2 0 0 0 2-1.6l1.4-7A2 2 0 0 0 18.7 10H14l.8-4.2a1.6 1.6 0 0 0-2.9-1.2L9 9.5V21Z"
        fill="currentColor"
      />
    </svg>
  );
}
import { useErrorText } from './useErrorText';

export interface BubbleProps {
  sessionId: string;
  msg: ChatMessage;
  characterName: string;
  characterAvatar: string;
  /** The newest message and the assistant's: regenerate and continue act on it. */
  isLastReply: boolean;
  /** A reply is being written in this session. */
  busy: boolean;
}

function ModelLine({ msg }: { msg: ChatMessage }) {
  const t = useT();
  if (msg.model === null) return null;
  return (
    <p className="bubble__model" data-testid="model-label">
      {t('tavern.chat.model', { label: msg.model.label })}
      {!msg.model.neural && <span className="bubble__not-neural">{t('tavern.chat.notNeural')}</span>}
    </p>
  );
}

function EditBox({ msg, onSave, onCancel }: { msg: ChatMessage; onSave: (text: string) => void; onCancel: () => void }) {
  const t = useT();
  const id = useId();
  const [text, setText] = useState(msg.content);
  return (
    <div className="bubble__edit">
      <label htmlFor={id} className="visually-hidden">
        {t('tavern.chat.edit')}
      </label>
      <textarea id={id} className="tavern-input" value={text} rows={Math.min(10, Math.max(2, text.split('\n').length))} onChange={(e) => setText(e.target.value)} autoFocus />
      <div className="bubble__edit-bar">
        <button type="button" className="button button--small" onClick={onCancel}>
          {t('tavern.chat.cancelEdit')}
        </button>
        <button type="button" className="button button--primary button--small" disabled={text.trim() === ''} onClick={() => onSave(text.trim())}>
          {t('tavern.chat.saveEdit')}
        </button>
      </div>
    </div>
  );
}

function useActions(props: BubbleProps, setEditing: (v: boolean) => void) {
  const t = useT();
  const errorText = useErrorText();
  const { sessionId, msg } = props;
  const fail = (e: unknown) => showToast(appStore, errorText(e));
  return {
    copy: async () => {
      try {
        const text = msg.local ? msg.content : await tavernApi.copyMessage(sessionId, msg.msg_id).catch(() => msg.content);
        await navigator.clipboard.writeText(text !== '' ? text : msg.content);
        showToast(appStore, t('tavern.chat.copied'));
      } catch (e) {
        fail(e);
      }
    },
    save: (text: string) => {
      editMessage(sessionId, msg.msg_id, text)
        .then(() => setEditing(false))
        .catch(fail);
    },
    remove: () => {
      deleteMessage(sessionId, msg.msg_id).catch(fail);
    },
    like: (v: -1 | 1) => {
      likeMessage(sessionId, msg, v).catch(fail);
    },
    regenerate: () => {
      regenerate(sessionId).catch(fail);
    },
    continue: () => {
      continueReply(sessionId).catch(fail);
    },
  };
}

/** One chat message: a bubble with its avatar, the model's label under replies, and its actions. */
export function MessageBubble(props: BubbleProps) {
  const t = useT();
  const { msg } = props;
  const [editing, setEditing] = useState(false);
  const [asking, setAsking] = useState(false);
  const act = useActions(props, setEditing);
  const mine = msg.role === 'user';
  const streaming = msg.state === 'streaming';
  const settled = !streaming && !props.busy && !msg.local;
  return (
    <li className={`bubble bubble--${mine ? 'user' : 'assistant'}${streaming ? ' bubble--streaming' : ''}`} data-testid="chat-message" data-role={msg.role} data-state={msg.state} data-msg-id={msg.msg_id}>
      {!mine && <Avatar src={props.characterAvatar} name={props.characterName} size="sm" />}
      <div className="bubble__column">
        <span className="bubble__who">{mine ? t('tavern.chat.you') : props.characterName}</span>
        {editing ? (
          <EditBox msg={msg} onSave={act.save} onCancel={() => setEditing(false)} />
        ) : (
          <div className="bubble__body">
            <p className="bubble__text" data-testid="message-text">
              {msg.content}
              {streaming && <span className="bubble__caret" aria-hidden="true" />}
            </p>
            {streaming && msg.content === '' && <span className="bubble__typing">{t('tavern.chat.writing', { name: props.characterName })}</span>}
          </div>
        )}
        {msg.state === 'cancelled' && <p className="bubble__state">{t('tavern.chat.cancelled')}</p>}
        {msg.state === 'failed' && (
          <p className="bubble__state bubble__state--failed" role="alert">
            {msg.error !== null ? t('tavern.chat.failed', { error: msg.error }) : t('tavern.chat.failedPlain')}
          </p>
        )}
        {!mine && <ModelLine msg={msg} />}
        {!mine && <ReplySpeechControl msgId={msg.msg_id} />}
        {settled && !editing && (
          <div className="bubble__actions" role="group" aria-label={t('tavern.chat.actions')}>
            <button type="button" className="bubble__action" onClick={() => void act.copy()}>
              {t('tavern.chat.copy')}
            </button>
            <button type="button" className="bubble__action" onClick={() => setEditing(true)}>
              {t('tavern.chat.edit')}
            </button>
            <button type="button" className="bubble__action" aria-haspopup="dialog" onClick={() => setAsking(true)}>
              {t('tavern.chat.delete')}
            </button>
            {!mine && (
              <>
                <button type="button" className={`bubble__action${msg.liked === 1 ? ' bubble__action--on' : ''}`} aria-pressed={msg.liked === 1} aria-label={t('tavern.chat.like')} title={t('tavern.chat.like')} onClick={() => act.like(1)}>
                  <Thumb down={false} />
                </button>
                <button type="button" className={`bubble__action${msg.liked === -1 ? ' bubble__action--on' : ''}`} aria-pressed={msg.liked === -1} aria-label={t('tavern.chat.dislike')} title={t('tavern.chat.dislike')} onClick={() => act.like(-1)}>
                  <Thumb down />
                </button>
              </>
            )}
            {props.isLastReply && (
              <>
                <button type="button" className="bubble__action" onClick={act.regenerate}>
                  ↻ {t('tavern.chat.regenerate')}
                </button>
                <button type="button" className="bubble__action" onClick={act.continue}>
                  → {t('tavern.chat.continue')}
                </button>
              </>
            )}
          </div>
        )}
        {asking && (
          <ConfirmDialog
            title={t('tavern.chat.deleteTitle')}
            message={t('tavern.chat.confirmDelete')}
            confirmLabel={t('tavern.chat.delete')}
            variant="danger"
            onConfirm={() => {
              setAsking(false);
              act.remove();
            }}
            onCancel={() => setAsking(false)}
          />
        )}
      </div>
    </li>
  );
}
