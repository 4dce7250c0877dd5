import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useT } from '../i18n/useT';
import { MessageBubble } from './MessageBubble';
import type { ChatLog } from './model';
import { lastReply, streamingMessage } from './model';

/** Spec 3 §9: the view stays pinned to the bottom unless the user scrolled up more than this (px). */
export const SCROLL_PIN_PX = 80;

/** The session's messages; new text keeps the view at the bottom unless the user scrolled up to read. */
export function ChatMessages(props: { sessionId: string; log: ChatLog; characterName: string; characterAvatar: string }) {
  const t = useT();
  const { log } = props;
  const ref = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const [away, setAway] = useState(false);
  const streaming = streamingMessage(log);
  const last = lastReply(log);
  const lastText = log.messages[log.messages.length - 1]?.content.length ?? 0;

  function onScroll() {
    const el = ref.current;
    if (!el) return;
    const distance = el.scrollHeight - el.scrollTop - el.clientHeight;
    pinned.current = distance <= SCROLL_PIN_PX;
    setAway(!pinned.current);
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
    if (pinned.current) toBottom(false);
  }, [log.messages.length, lastText, props.sessionId]);

  // A pinned view stays at the bottom when the text re-wraps (the window or a side panel changed its width).
  useEffect(() => {
    const el = ref.current;
    const list = el?.firstElementChild;
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
      <ol className="chat__messages" aria-label={t('tavern.chat.messages')} aria-live="polite" aria-busy={streaming !== null}>
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
