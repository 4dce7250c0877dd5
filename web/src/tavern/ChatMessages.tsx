import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useT } from '../i18n/useT';
import { loadOlder } from './actions';
import { MessageBubble } from './MessageBubble';
import type { ChatLog } from './model';
import { canLoadOlder, lastReply, streamingMessage } from './model';
import { useErrorText } from './useErrorText';

/** Spec 3 §9: the view stays pinned to the bottom unless the user scrolled up more than this (px). */
export const SCROLL_PIN_PX = 80;

/** Scrolling this close to the top (px) reads the page of older messages. */
export const OLDER_AT_PX = 120;

/** The session's messages; new text keeps the view at the bottom unless the user scrolled up to read. */
export function ChatMessages(props: { sessionId: string; log: ChatLog; characterName: string; characterAvatar: string }) {
  const t = useT();
  const errorText = useErrorText();
  const { log, sessionId } = props;
  const ref = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  /** While an older page is read: the distance from the bottom to keep (what is on screen stays put). */
  const keep = useRef<{ fromBottom: number; firstId: string } | null>(null);
  const [away, setAway] = useState(false);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [olderError, setOlderError] = useState<string | null>(null);
  const streaming = streamingMessage(log);
  const last = lastReply(log);
  const lastText = log.messages[log.messages.length - 1]?.content.length ?? 0;
  const firstId = log.messages[0]?.msg_id ?? '';
  const more = canLoadOlder(log);

  async function older() {
    const el = ref.current;
    if (!el || loadingOlder || !canLoadOlder(log)) return;
    keep.current = { fromBottom: el.scrollHeight - el.scrollTop, firstId: log.messages[0]?.msg_id ?? '' };
    setLoadingOlder(true);
    setOlderError(null);
    try {
      await loadOlder(sessionId);
    } catch (e) {
      keep.current = null;
      setOlderError(errorText(e));
    } finally {
      setLoadingOlder(false);
    }
  }

  function onScroll() {
    const el = ref.current;
    if (!el) return;
    const distance = el.scrollHeight - el.scrollTop - el.clientHeight;
    pinned.current = distance <= SCROLL_PIN_PX;
    setAway(!pinned.current);
    if (el.scrollTop <= OLDER_AT_PX && !pinned.current && olderError === null) void older();
  }

  function toBottom(smooth: boolean) {
    const el = ref.current;
    if (!el) return;
    el.scrollTo({ top: el.scrollHeight, behavior: smooth ? 'smooth' : 'auto' });
    pinned.current = true;
    setAway(false);
  }

  // Opening a session starts at its newest message.
  useEffect(() => {
    pinned.current = true;
  }, [props.sessionId]);

  useLayoutEffect(() => {
    const el = ref.current;
    // An older page went in above: the messages on screen stay where they were.
    const k = keep.current;
    if (el && k !== null && (k.firstId !== firstId || !loadingOlder)) {
      el.scrollTop = el.scrollHeight - k.fromBottom;
      keep.current = null;
      return;
    }
    if (pinned.current) toBottom(false);
  }, [log.messages.length, lastText, props.sessionId, firstId, loadingOlder]);

  // A pinned view stays at the bottom when the text re-wraps (the window or a side panel changed its width).
  useEffect(() => {
    const el = ref.current;
    const list = el?.querySelector('.chat__messages');
    if (!el || !list || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      if (pinned.current) el.scrollTop = el.scrollHeight;
    });
    observer.observe(el);
    observer.observe(list);
    return () => observer.disconnect();
  }, []);

  return (
    <div className="chat__scroll" ref={ref} onScroll={onScroll}>
      {(more || loadingOlder || olderError !== null) && (
        <div className="chat__older">
          {olderError !== null && (
            <span className="tavern__error" role="alert">
              {olderError}{' '}
            </span>
          )}
          <button type="button" className="button button--link" disabled={loadingOlder} onClick={() => void older()} data-testid="load-older">
            {loadingOlder ? t('tavern.chat.loadingOlder') : t('tavern.chat.loadOlder')}
          </button>
        </div>
      )}
      <ol className="chat__messages" aria-label={t('tavern.chat.messages')} aria-live="polite" aria-busy={streaming !== null || loadingOlder}>
        {log.messages.map((m) => (
          <MessageBubble
            key={m.msg_id}
            sessionId={props.sessionId}
            msg={m}
            characterName={props.characterName}
            characterAvatar={props.characterAvatar}
            isLastReply={last?.msg_id === m.msg_id}
            busy={streaming !== null}
          />
        ))}
      </ol>
      {log.loaded && log.messages.length === 0 && <p className="tavern__note">{t('tavern.chat.empty')}</p>}
      {!log.loaded && <p className="tavern__note">{t('tavern.loading')}</p>}
      {away && (
        <button type="button" className="button chat__jump" onClick={() => toBottom(true)}>
          ↓ {t('tavern.chat.jumpLatest')}
        </button>
      )}
    </div>
  );
}
