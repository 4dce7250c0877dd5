// WebSocket frame types: the JSON objects `{type, token?, content, seq?}` that
// travel on the one socket (DESIGN.md "Contracts"), as a union discriminated by
// `type`, plus the single decoder that turns a text frame into that union.
//
// Mirrors protocol/src/frame.rs (FrameType, AuthConfirm, ResumeResult). Until
// the Rust side exports these types (ts-rs), keep the two in step by hand.

/** Frame kinds, numbered as on the wire. */
export const FrameType = {
  /** Heartbeat, both ways; the server's first one confirms authentication. */
  Heartbeat: 4,
  /** Client authentication (`token` set). */
  Auth: 7,
  /** A task update; content is the polled task object. */
  TaskUpdate: 10,
  /** A chat token stream. */
  ChatStream: 11,
  /** An IM channel message. */
  ImMessage: 12,
  /** A notification. */
  Notification: 13,
  /** An error `{code, key, msg}`. */
  Error: 14,
  /** Resume: the client asks for a replay after `last_seq`; the server answers. */
  Resume: 15,
} as const;

/** Pushed kinds carry a per-stream `seq` that a resume can replay. */
export const PUSH_TYPES = [
  FrameType.TaskUpdate,
  FrameType.ChatStream,
  FrameType.ImMessage,
  FrameType.Notification,
] as const;
export type PushType = (typeof PUSH_TYPES)[number];

/** Content of the server's first heartbeat, which confirms authentication. */
export interface AuthConfirm {
  account_id: string;
  /** Identifies the push stream whose sequence numbers this socket sees. */
  stream: string;
  /** The last sequence number already pushed on that stream. */
  seq: number;
}

/** The server's answer to a resume request. */
export interface ResumeResult {
  /** False when some frames after `last_seq` were lost: reload state over REST. */
  resumed: boolean;
  /** How many frames were replayed before this answer. */
  replayed: number;
  /** The stream's current last sequence number. */
  seq: number;
  stream: string;
}

/** Frame 10: the polled task object (spec 1 task fields; open-ended for now). */
export interface TaskUpdateContent {
  id: string;
  status?: number;
  process?: number;
  [field: string]: unknown;
}

/** Frame 11: one piece of a streamed chat reply. */
export interface ChatStreamContent {
  session_id: string;
  msg_id: string;
  seq: number;
  delta: string;
  done: boolean;
  /** On the last frame (`done`): how the reply ended. */
  state?: 'done' | 'cancelled' | 'failed';
  /** On a failed last frame: why. */
  error?: string | null;
}

/** Frame 12: a message in an IM channel. */
export interface ImMessageContent {
  channel_id: string;
  seq: number;
  sender: string;
  content: string;
  [field: string]: unknown;
}

/** Frame 13: a notification (shape not fixed by the contract yet). */
export type NotificationContent = Record<string, unknown>;

/** Frame 14: an error, with the same fields as an envelope's status. */
export interface ErrorContent {
  code: number;
  key: string | null;
  msg: string;
}

/** A frame from the server, decoded once. */
export type ServerFrame =
  | { type: typeof FrameType.Heartbeat; content: AuthConfirm | null }
  | { type: typeof FrameType.TaskUpdate; seq?: number; content: TaskUpdateContent }
  | { type: typeof FrameType.ChatStream; seq?: number; content: ChatStreamContent }
  | { type: typeof FrameType.ImMessage; seq?: number; content: ImMessageContent }
  | { type: typeof FrameType.Notification; seq?: number; content: NotificationContent }
  | { type: typeof FrameType.Error; content: ErrorContent }
  | { type: typeof FrameType.Resume; content: ResumeResult };

/** The pushed subset of {@link ServerFrame}. */
export type PushFrame = Extract<ServerFrame, { type: PushType }>;

/** A frame the client sends. */
export type ClientFrame =
  | { type: typeof FrameType.Auth; token: string; content: null }
  | { type: typeof FrameType.Heartbeat; content: null }
  | { type: typeof FrameType.Resume; content: { last_seq: number; stream: string } };

export function encodeClientFrame(frame: ClientFrame): string {
  return JSON.stringify(frame);
}

export function isPushFrame(frame: ServerFrame): frame is PushFrame {
  return (PUSH_TYPES as readonly number[]).includes(frame.type);
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isSeq(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function asAuthConfirm(v: unknown): AuthConfirm | null {
  if (isObject(v) && typeof v.account_id === 'string' && typeof v.stream === 'string' && isSeq(v.seq)) {
    return { account_id: v.account_id, stream: v.stream, seq: v.seq };
  }
  return null;
}

function asResumeResult(v: unknown): ResumeResult | null {
  if (
    isObject(v) &&
    typeof v.resumed === 'boolean' &&
    isSeq(v.replayed) &&
    isSeq(v.seq) &&
    typeof v.stream === 'string'
  ) {
    return { resumed: v.resumed, replayed: v.replayed, seq: v.seq, stream: v.stream };
  }
  return null;
}

function asErrorContent(v: unknown): ErrorContent | null {
  if (isObject(v) && typeof v.code === 'number') {
    return {
      code: v.code,
      key: typeof v.key === 'string' ? v.key : null,
      msg: typeof v.msg === 'string' ? v.msg : '',
    };
  }
  return null;
}

/**
 * Decodes one text frame from the server. Returns null for anything that is
 * not a well-formed frame of a known kind: the caller drops it (and may log),
 * it never throws on bad input.
 */
export function parseServerFrame(text: string): ServerFrame | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(raw) || typeof raw.type !== 'number') return null;
  const seq = isSeq(raw.seq) ? { seq: raw.seq } : {};
  const content = raw.content;
  switch (raw.type) {
    case FrameType.Heartbeat:
      return { type: FrameType.Heartbeat, content: asAuthConfirm(content) };
    case FrameType.TaskUpdate:
      return isObject(content) && typeof content.id === 'string'
        ? { type: FrameType.TaskUpdate, ...seq, content: content as TaskUpdateContent }
        : null;
    case FrameType.ChatStream:
      return isObject(content) && typeof content.session_id === 'string' && typeof content.msg_id === 'string'
        ? { type: FrameType.ChatStream, ...seq, content: content as unknown as ChatStreamContent }
        : null;
    case FrameType.ImMessage:
      return isObject(content) && typeof content.channel_id === 'string'
        ? { type: FrameType.ImMessage, ...seq, content: content as ImMessageContent }
        : null;
    case FrameType.Notification:
      return { type: FrameType.Notification, ...seq, content: isObject(content) ? content : {} };
    case FrameType.Error: {
      const error = asErrorContent(content);
      return error ? { type: FrameType.Error, content: error } : null;
    }
    case FrameType.Resume: {
      const result = asResumeResult(content);
      return result ? { type: FrameType.Resume, content: result } : null;
    }
    default:
      return null;
  }
}
