// The agent chat's message model (spec 2 §3 "Chat message"): history items
// and streamed deltas become ChatMessages whose text is parsed into normal
// and prompt parts (spec 2 §4, `parsePromptStream`). Pure.
import type { HistoryItem } from './api';
import { parsePromptStream } from './promptStream';
import type { PromptPart } from './promptStream';

export interface ChatMessage {
  id: string;
  type: 'user' | 'assistant';
  text: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
  /** Shown before the server has it (the user's message in flight, the reply while it streams). */
  isTemp: boolean;
  hasMultipleParts: boolean;
  contentParts: PromptPart[];
  /** An attached image (a user message with `content_type: "image"`). */
  imageUrl: string | null;
}

/** Builds a message, parsing its parts. */
export function chatMessage(fields: Omit<ChatMessage, 'hasMultipleParts' | 'contentParts'>): ChatMessage {
  const contentParts = fields.type === 'assistant' ? parsePromptStream(fields.text) : [];
  return { ...fields, contentParts, hasMultipleParts: contentParts.length > 1 };
}

/** Seconds or milliseconds since the epoch -> milliseconds. */
export function millis(t: number): number {
  return t < 1e12 ? t * 1000 : t;
}

function partsText(parts: unknown[] | undefined): string {
  return (parts ?? [])
    .map((p) => (typeof p === 'string' ? p : typeof p === 'object' && p !== null && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : ''))
    .join('');
}

/** A history item (msg_id, role, content.parts) as a message. */
export function fromHistory(item: HistoryItem): ChatMessage {
  return chatMessage({
    id: item.msg_id,
    type: item.role === 'user' ? 'user' : 'assistant',
    text: partsText(item.content?.parts),
    timestamp: millis(item.create_at),
    isTemp: false,
    imageUrl: item.image_url ? item.image_url : null,
  });
}

/**
 * History items as messages. One turn's text and image parts are stored as
 * consecutive user messages (same time); they show as one message, as sent.
 */
export function fromHistoryItems(items: readonly HistoryItem[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const item of items) {
    const m = fromHistory(item);
    const prev = out.at(-1);
    if (prev && m.type === 'user' && prev.type === 'user' && prev.timestamp === m.timestamp && (prev.imageUrl === null || m.imageUrl === null)) {
      out[out.length - 1] = chatMessage({
        id: m.id,
        type: 'user',
        text: [prev.text, m.text].filter((t) => t !== '').join('\n'),
        timestamp: m.timestamp,
        isTemp: false,
        imageUrl: prev.imageUrl ?? m.imageUrl,
      });
    } else {
      out.push(m);
    }
  }
  return out;
}

/** Appends a delta to the reply `id`, creating the (temporary) reply at its first delta. */
export function applyDelta(messages: readonly ChatMessage[], id: string, delta: string, now: number): ChatMessage[] {
  const i = messages.findIndex((m) => m.id === id && m.type === 'assistant');
  if (i < 0) {
    return [...messages, chatMessage({ id, type: 'assistant', text: delta, timestamp: now, isTemp: true, imageUrl: null })];
  }
  const m = messages[i];
  if (!m) return [...messages];
  const next = [...messages];
  next[i] = chatMessage({ id: m.id, type: m.type, timestamp: m.timestamp, isTemp: m.isTemp, imageUrl: m.imageUrl, text: m.text + delta });
  return next;
}

/** The reply `id` is complete: no longer temporary. */
export function finishReply(messages: readonly ChatMessage[], id: string): ChatMessage[] {
  return messages.map((m) => (m.id === id && m.isTemp ? { ...m, isTemp: false } : m));
}

/** The id of the newest message the server knows (the next message's parent); '' when none. */
export function lastServerId(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m && !m.isTemp) return m.id;
  }
  return '';
}

/** One event of the agent stream: `{"status":{"code"},"data":{"msg_id","delta","done"}}`. */
export type AgentStreamEvent =
  | { kind: 'delta'; msgId: string; delta: string; done: boolean }
  | { kind: 'error'; code: number; key: string | null; msg: string };

export function parseAgentEvent(data: string): AgentStreamEvent | null {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const status = (v as { status?: unknown }).status;
  if (typeof status !== 'object' || status === null) return null;
  const s = status as { code?: unknown; key?: unknown; msg?: unknown };
  const code = typeof s.code === 'string' ? Number(s.code) : s.code;
  if (typeof code !== 'number' || !Number.isFinite(code)) return null;
  if (code !== 10000) {
    return { kind: 'error', code, key: typeof s.key === 'string' ? s.key : null, msg: typeof s.msg === 'string' ? s.msg : '' };
  }
  const d = (v as { data?: unknown }).data;
  if (typeof d !== 'object' || d === null) return null;
  const x = d as { msg_id?: unknown; delta?: unknown; done?: unknown };
  return {
    kind: 'delta',
    msgId: typeof x.msg_id === 'string' ? x.msg_id : '',
    delta: typeof x.delta === 'string' ? x.delta : '',
    done: x.done === true,
  };
}
