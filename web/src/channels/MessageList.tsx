import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { accountAtom } from '../account/atoms';
import { useT } from '../i18n/useT';
import { OBJ } from '../moderation/api';
import { ReportButton } from '../moderation/ReportDialog';
import { useAtomValue } from '../state/jotai';
import { loadOlder } from './actions';
import { channelMembersAtom } from './atoms';
import type { ChannelLog, ChannelMessage } from './model';
import { newestSeq, oldestSeq } from './model';

/** Distance from the top (px) at which older messages are fetched. */
const TOP_THRESHOLD = 80;
/** Distance from the bottom (px) within which new messages keep the view pinned. */
const BOTTOM_THRESHOLD = 120;

function time(ms: number | null): string {
  return ms === null ? '' : new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

function MessageItem({ msg, senderName, mine, channelId }: { msg: ChannelMessage; senderName: string; mine: boolean; channelId: string }) {
  const t = useT();
  return (
    <li className={`message${mine ? ' message--mine' : ''}`} data-seq={msg.seq} data-testid="message">
      <div className="message__meta">
        <span className="message__sender">{senderName}</span>
        {msg.created_at !== null && <time dateTime={new Date(msg.created_at).toISOString()}>{time(msg.created_at)}</time>}
        {!mine && msg.sender !== '' && (
          <ReportButton
            obj={{ obj_id: `${channelId}:${msg.seq}`, obj_type: OBJ.message }}
            label={t('moderation.report.openFor.31', { name: senderName })}
            className="button button--link message__report"
            testId="message-report"
          />
        )}
      </div>
      {msg.kind === 'task' && msg.image !== null && (
        <img
          className="message__image"
          src={msg.image}
          alt={t('channels.taskImage', { prompt: msg.content })}
          loading="lazy"
        />
      )}
      {msg.content !== '' && <p className="message__text">{msg.content}</p>}
    </li>
  );
}

/** A channel's history: older pages load when scrolled to the top; new messages keep the view at the bottom. */
export function MessageList({ channelId, name, log }: { channelId: string; name: string; log: ChannelLog }) {
  const t = useT();
  const me = useAtomValue(accountAtom)?.id ?? null;
  const members = useAtomValue(channelMembersAtom)[channelId];
  const ref = useRef<HTMLDivElement>(null);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [failed, setFailed] = useState(false);
  const pinned = useRef(true);
  const anchor = useRef<{ oldest: number | null; height: number; top: number }>({ oldest: null, height: 0, top: 0 });

  const oldest = oldestSeq(log);
  const newest = newestSeq(log);

  function nameOf(msg: ChannelMessage): string {
    return members?.find((m) => m.account_id === msg.sender)?.name ?? msg.sender_name ?? msg.sender;
  }

  function fetchOlder() {
    if (loadingOlder || !log.hasOlder || !log.loaded) return;
    const el = ref.current;
    if (el) anchor.current = { oldest, height: el.scrollHeight, top: el.scrollTop };
    setLoadingOlder(true);
    setFailed(false);
    loadOlder(channelId)
      .catch(() => setFailed(true))
      .finally(() => setLoadingOlder(false));
  }

  // Older messages were prepended: keep the same message under the reader's eyes.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (anchor.current.oldest !== null && oldest !== anchor.current.oldest) {
      el.scrollTop = el.scrollHeight - anchor.current.height + anchor.current.top;
      anchor.current = { oldest: null, height: 0, top: 0 };
    }
  }, [oldest]);

  // A newer message arrived: follow it when the reader was at the bottom.
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [newest]);

  // The view changed size (a phone turned, the composer grew) or a result image
  // finished loading and grew the history: stay at the bottom if there.
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const stick = () => {
      if (pinned.current) el.scrollTop = el.scrollHeight;
    };
    // `load` does not bubble: listen in the capture phase for the images inside.
    el.addEventListener('load', stick, true);
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(stick);
    observer?.observe(el);
    return () => {
      el.removeEventListener('load', stick, true);
      observer?.disconnect();
    };
  }, []);

  // A first page that does not fill the view cannot be scrolled: fetch more.
  useEffect(() => {
    const el = ref.current;
    if (el && log.loaded && log.hasOlder && !loadingOlder && !failed && el.scrollHeight <= el.clientHeight) fetchOlder();
  });

  function onScroll() {
    const el = ref.current;
    if (!el) return;
    pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < BOTTOM_THRESHOLD;
    if (el.scrollTop < TOP_THRESHOLD) fetchOlder();
  }

  return (
    <div
      ref={ref}
      className="messages"
      onScroll={onScroll}
      tabIndex={0}
      role="log"
      aria-live="polite"
      aria-label={t('channels.history', { name })}
      data-testid="message-list"
    >
      <div className="messages__top">
        {loadingOlder ? (
          <span role="status">{t('channels.loadingOlder')}</span>
        ) : log.loaded && !log.hasOlder ? (
          <span>{log.items.length === 0 ? t('channels.noMessages') : t('channels.start')}</span>
        ) : log.loaded ? (
          <button type="button" className="button button--link" onClick={fetchOlder}>
            {t('channels.loadOlder')}
          </button>
        ) : (
          <span role="status">{t('channels.loading')}</span>
        )}
      </div>
      <ol className="messages__list">
        {log.items.map((m) => (
          <MessageItem key={m.seq} msg={m} senderName={nameOf(m)} mine={m.sender === me} channelId={channelId} />
        ))}
      </ol>
    </div>
  );
}
