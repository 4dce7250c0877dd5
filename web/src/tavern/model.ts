// The tavern's data (characters, sessions, messages, datacards) decoded
// tolerantly from the API (/tmp/notes/chat-api.md), and the pure reducers of a
// chat session's message log: streamed frames 11 applied in seq order, old or
// duplicate frames ignored, frames that arrive ahead of a gap kept until the
// server's state fills it (resume), never duplicating text.

export type Gender = 'male' | 'female' | 'non_binary' | 'other';
export const GENDERS: readonly Gender[] = ['male', 'female', 'non_binary', 'other'];
/** Character type: 1 entertainment, 2 tool (0 = all, in filters). */
export type CharacterType = 1 | 2;
export type TypeFilter = 0 | CharacterType;
export type OrderBy = 'new' | 'hot';

export interface Owner {
  id: string;
  name: string;
}

/** A character in lists. */
export interface CharacterCard {
  id: string;
  name: string;
  description: string;
  avatar: string;
  tags: string[];
  gender: Gender;
  character_type: CharacterType;
  chat_count: number;
  publish_at: number | null;
  owner: Owner;
  /** Only in "my characters": false for drafts. */
  published: boolean | null;
}

export interface ChatSettings {
  temperature: number;
  top_p: number;
  max_reply_tokens: number;
}

/** The editable fields of a character (the publish call's body, without id). */
export interface CharacterFields {
  name: string;
  description: string;
  persona: string;
  scenario: string;
  greeting: string;
  alternate_greetings: string[];
  example_dialogue: string;
  system_prompt: string;
  post_history_instructions: string;
  creator_notes: string;
  tags: string[];
  gender: Gender;
  character_type: CharacterType;
  avatar: string;
  settings: ChatSettings | null;
  published: boolean;
}

/** The whole character (detail). */
export interface CharacterView extends CharacterFields {
  id: string;
  publish_at: number | null;
  create_at: number | null;
  update_at: number | null;
  chat_count: number;
  owner: Owner;
  is_owner: boolean;
}

export interface ModelInfo {
  name: string;
  label: string;
  neural: boolean;
}

export type MessageState = 'streaming' | 'done' | 'cancelled' | 'failed';
export type Role = 'user' | 'assistant';

export interface ChatMessage {
  msg_id: string;
  idx: number;
  role: Role;
  content: string;
  create_at: number | null;
  state: MessageState;
  liked: -1 | 0 | 1;
  model: ModelInfo | null;
  error: string | null;
  /** The last stream frame reflected in `content` (0 for none). */
  seq: number;
  /** True for a message shown before the server confirmed it (the user's own, just sent). */
  local?: boolean;
}

export interface ChatSession {
  session_id: string;
  character: CharacterCard | null;
  title: string;
  create_at: number | null;
  update_at: number | null;
  last_message: string;
  datacard_ids: string[];
  /** The session's voice (`session/timbre/set`); empty or absent: replies are not spoken. */
  timbre_id?: string;
  /** The session's model settings (null when the server did not say). */
  settings: ChatSettings | null;
}

/** A recently chatted character (`character/latest`). */
export interface RecentCard extends CharacterCard {
  /** When the caller last chatted with it (ms), or null. */
  last_chat_at: number | null;
}

/** A starter template of the create form (`tavern-pro/preset/list`). */
export interface Preset {
  id: string;
  title: string;
  persona: string;
  greeting: string;
  scenario: string;
}

export interface Datacard {
  id: string;
  title: string;
  content: string;
  create_at: number | null;
  update_at: number | null;
}

/** Frame 11's content. */
export interface StreamFrame {
  session_id: string;
  msg_id: string;
  seq: number;
  delta: string;
  done: boolean;
  state: MessageState | null;
  error: string | null;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function str(v: unknown, fallback = ''): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : fallback;
}
function num(v: unknown, fallback = 0): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}
function time(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v) && v > 0) return v < 1e12 ? v * 1000 : v;
  if (typeof v === 'string' && v !== '') {
    const ms = Date.parse(v);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}
function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
function gender(v: unknown): Gender {
  return GENDERS.includes(v as Gender) ? (v as Gender) : 'other';
}
function characterType(v: unknown): CharacterType {
  return v === 2 || v === '2' ? 2 : 1;
}
function owner(v: unknown): Owner {
  return isObject(v) ? { id: str(v.id), name: str(v.name) } : { id: '', name: '' };
}
function messageState(v: unknown): MessageState | null {
  return v === 'streaming' || v === 'done' || v === 'cancelled' || v === 'failed' ? v : null;
}

/** The list inside an answer (`items`), or []. */
export function itemsOf(data: unknown): unknown[] {
  if (Array.isArray(data)) return data;
  if (isObject(data) && Array.isArray(data.items)) return data.items;
  return [];
}

export function parseCard(v: unknown): CharacterCard | null {
  if (!isObject(v) || str(v.id) === '') return null;
  return {
    id: str(v.id),
    name: str(v.name),
    description: str(v.description),
    avatar: str(v.avatar),
    tags: strings(v.tags),
    gender: gender(v.gender),
    character_type: characterType(v.character_type),
    chat_count: num(v.chat_count),
    publish_at: time(v.publish_at),
    owner: owner(v.owner),
    published: typeof v.published === 'boolean' ? v.published : null,
  };
}

function parseSettings(v: unknown): ChatSettings | null {
  if (!isObject(v)) return null;
  return { temperature: num(v.temperature, 0.8), top_p: num(v.top_p, 0.95), max_reply_tokens: num(v.max_reply_tokens, 256) };
}

export function parseCharacter(v: unknown): CharacterView | null {
  if (!isObject(v) || str(v.id) === '') return null;
  return {
    id: str(v.id),
    name: str(v.name),
    description: str(v.description),
    persona: str(v.persona),
    scenario: str(v.scenario),
    greeting: str(v.greeting),
    alternate_greetings: strings(v.alternate_greetings),
    example_dialogue: str(v.example_dialogue),
    system_prompt: str(v.system_prompt),
    post_history_instructions: str(v.post_history_instructions),
    creator_notes: str(v.creator_notes),
    tags: strings(v.tags),
    gender: gender(v.gender),
    character_type: characterType(v.character_type),
    avatar: str(v.avatar),
    settings: parseSettings(v.settings),
    published: v.published !== false,
    publish_at: time(v.publish_at),
    create_at: time(v.create_at),
    update_at: time(v.update_at),
    chat_count: num(v.chat_count),
    owner: owner(v.owner),
    is_owner: v.is_owner === true,
  };
}

export function parseModelInfo(v: unknown): ModelInfo | null {
  if (!isObject(v)) return null;
  const name = str(v.name);
  const label = str(v.label, name);
  if (name === '' && label === '') return null;
  return { name, label: label === '' ? name : label, neural: v.neural === true };
}

export function parseMessage(v: unknown): ChatMessage | null {
  if (!isObject(v) || str(v.msg_id) === '') return null;
  const liked = num(v.liked);
  return {
    msg_id: str(v.msg_id),
    idx: num(v.idx),
    role: v.role === 'user' ? 'user' : 'assistant',
    content: str(v.content),
    create_at: time(v.create_at),
    state: messageState(v.state) ?? 'done',
    liked: liked > 0 ? 1 : liked < 0 ? -1 : 0,
    model: parseModelInfo(v.model),
    error: typeof v.error === 'string' && v.error !== '' ? v.error : null,
    seq: num(v.seq),
  };
}

export function parseSession(v: unknown): ChatSession | null {
  if (!isObject(v) || str(v.session_id) === '') return null;
  return {
    session_id: str(v.session_id),
    character: parseCard(v.character),
    title: str(v.title),
    create_at: time(v.create_at),
    update_at: time(v.update_at),
    last_message: str(v.last_message),
    datacard_ids: strings(v.datacard_ids),
    timbre_id: str(v.timbre_id),
    settings: parseSettings(v.settings),
  };
}

export function parseRecent(v: unknown): RecentCard | null {
  const card = parseCard(v);
  if (card === null || !isObject(v)) return null;
  return { ...card, last_chat_at: time(v.last_chat_at) };
}

export function parsePreset(v: unknown): Preset | null {
  if (!isObject(v) || str(v.id) === '' || str(v.title) === '') return null;
  return { id: str(v.id), title: str(v.title), persona: str(v.persona), greeting: str(v.greeting), scenario: str(v.scenario) };
}

export function parseDatacard(v: unknown): Datacard | null {
  if (!isObject(v) || str(v.id) === '') return null;
  return { id: str(v.id), title: str(v.title), content: str(v.content), create_at: time(v.create_at), update_at: time(v.update_at) };
}

/** Frame 11's content, or null when it is not one. */
export function parseStreamFrame(v: unknown): StreamFrame | null {
  if (!isObject(v) || typeof v.session_id !== 'string' || typeof v.msg_id !== 'string') return null;
  if (typeof v.seq !== 'number' || !Number.isSafeInteger(v.seq) || v.seq < 1) return null;
  return {
    session_id: v.session_id,
    msg_id: v.msg_id,
    seq: v.seq,
    delta: typeof v.delta === 'string' ? v.delta : '',
    done: v.done === true,
    state: messageState(v.state),
    error: typeof v.error === 'string' && v.error !== '' ? v.error : null,
  };
}

// ---------------------------------------------------------------------------
// A session's message log.

export interface ChatLog {
  /** Messages, oldest first. */
  messages: readonly ChatMessage[];
  /** True once the server's list has been read. */
  loaded: boolean;
  /** Frames that came before the frames they follow (a gap), by msg_id. */
  pending: Readonly<Record<string, readonly StreamFrame[]>>;
  /** True while frames are waiting on a gap: the server's state should be read. */
  gap: boolean;
  /** True once it is known that no message is older than the first one held. */
  olderEnd?: boolean;
}

export const EMPTY_LOG: ChatLog = { messages: [], loaded: false, pending: {}, gap: false, olderEnd: false };

/** A reply's message before its first frame. */
export function streamingReply(msgId: string, idx: number): ChatMessage {
  return {
    msg_id: msgId,
    idx,
    role: 'assistant',
    content: '',
    create_at: Date.now(),
    state: 'streaming',
    liked: 0,
    model: null,
    error: null,
    seq: 0,
  };
}

function nextIdx(messages: readonly ChatMessage[]): number {
  return messages.reduce((max, m) => Math.max(max, m.idx + 1), 0);
}

/** Applies one frame to one message that is exactly one behind it. */
function applyToMessage(msg: ChatMessage, frame: StreamFrame): ChatMessage {
  return {
    ...msg,
    content: msg.content + frame.delta,
    seq: frame.seq,
    state: frame.done ? (frame.state ?? 'done') : 'streaming',
    error: frame.done ? frame.error : null,
  };
}

/** Applies every pending frame of `msgId` that now follows on; drops the ones already reflected. */
function drain(log: ChatLog, msgId: string): ChatLog {
  const waiting = log.pending[msgId];
  if (!waiting || waiting.length === 0) return log;
  const i = log.messages.findIndex((m) => m.msg_id === msgId);
  if (i < 0) return log;
  let msg = log.messages[i]!;
  const rest: StreamFrame[] = [];
  for (const frame of [...waiting].sort((a, b) => a.seq - b.seq)) {
    if (frame.seq <= msg.seq) continue;
    if (frame.seq === msg.seq + 1) msg = applyToMessage(msg, frame);
    else rest.push(frame);
  }
  const messages = log.messages.slice();
  messages[i] = msg;
  const pending = { ...log.pending };
  if (rest.length > 0) pending[msgId] = rest;
  else delete pending[msgId];
  return { ...log, messages, pending, gap: Object.keys(pending).length > 0 };
}

function park(log: ChatLog, frame: StreamFrame): ChatLog {
  const waiting = log.pending[frame.msg_id] ?? [];
  if (waiting.some((f) => f.seq === frame.seq)) return { ...log, gap: true };
  return { ...log, pending: { ...log.pending, [frame.msg_id]: [...waiting, frame] }, gap: true };
}

/**
 * Applies one stream frame: the next seq of its message appends its delta; an
 * old or repeated seq changes nothing; a seq beyond the next waits (and marks a
 * gap) until the missing text arrives by frame or from the server. A frame for
 * a reply the log does not know yet starts it when it is the reply's first;
 * otherwise it waits too.
 */
export function applyFrame(log: ChatLog, frame: StreamFrame): ChatLog {
  const i = log.messages.findIndex((m) => m.msg_id === frame.msg_id);
  if (i < 0) {
    if (frame.seq === 1 && log.loaded) {
      const msg = applyToMessage(streamingReply(frame.msg_id, nextIdx(log.messages)), frame);
      return drain({ ...log, messages: [...log.messages, msg] }, frame.msg_id);
    }
    return park(log, frame);
  }
  const msg = log.messages[i]!;
  if (frame.seq <= msg.seq) return log;
  if (frame.seq > msg.seq + 1) return park(log, frame);
  const messages = log.messages.slice();
  messages[i] = applyToMessage(msg, frame);
  return drain({ ...log, messages }, frame.msg_id);
}

/** The server's copy wins when it has seen at least as many frames as ours. */
function newer(local: ChatMessage, server: ChatMessage): ChatMessage {
  if (server.seq > local.seq) return server;
  if (server.seq < local.seq) return { ...local, liked: server.liked, idx: server.idx };
  // Same stream position: the server also knows edits, likes and the final state.
  return local.state !== 'streaming' && server.state === 'streaming' ? { ...server, state: local.state } : server;
}

/**
 * Merges one message read from the server (latest_state_info, or a progress
 * poll): never loses text a frame already delivered, then applies the frames
 * waiting on it.
 */
export function mergeMessage(log: ChatLog, server: ChatMessage): ChatLog {
  const i = log.messages.findIndex((m) => m.msg_id === server.msg_id);
  let messages: ChatMessage[];
  if (i < 0) {
    messages = [...log.messages.filter((m) => !(m.local && m.idx === server.idx)), server].sort((a, b) => a.idx - b.idx);
  } else {
    messages = log.messages.slice();
    messages[i] = newer(log.messages[i]!, server);
  }
  return drain({ ...log, messages }, server.msg_id);
}

/**
 * Takes the server's list (the newest page, oldest first) as the truth for
 * the messages it holds, keeping any reply we have streamed further than the
 * server had when it answered, and the user's unconfirmed message when the
 * list does not have it yet. Waiting frames are then applied.
 */
export function mergeList(log: ChatLog, items: readonly ChatMessage[]): ChatLog {
  const byId = new Map(log.messages.map((m) => [m.msg_id, m]));
  const merged = items.map((server) => {
    const local = byId.get(server.msg_id);
    return local ? newer(local, server) : server;
  });
  const serverIds = new Set(items.map((m) => m.msg_id));
  const newest = items.reduce((max, m) => Math.max(max, m.idx), -1);
  // Older pages read before (load older) stay: the list is only the newest page.
  const oldest = items.length === 0 ? -1 : items.reduce((min, m) => Math.min(min, m.idx), Number.POSITIVE_INFINITY);
  // A streamed reply or a just-sent message the server's answer predates.
  const confirmed = (m: ChatMessage) => items.some((s) => s.role === 'user' && s.idx >= m.idx && s.content === m.content);
  const extra = log.messages.filter((m) => {
    if (serverIds.has(m.msg_id)) return false;
    if (m.local === true) return !confirmed(m);
    if (m.idx < oldest) return true;
    return m.idx > newest && (m.seq > 0 || m.state === 'streaming');
  });
  const messages = [...merged, ...extra].sort((a, b) => a.idx - b.idx);
  let next: ChatLog = { ...log, messages, loaded: true };
  for (const id of Object.keys(next.pending)) next = drain(next, id);
  return { ...next, gap: Object.keys(next.pending).length > 0 };
}

/** The user's message, shown at once while chat/start runs. */
export function addLocalUserMessage(log: ChatLog, content: string, localId: string): ChatLog {
  const msg: ChatMessage = {
    msg_id: localId,
    idx: nextIdx(log.messages),
    role: 'user',
    content,
    create_at: Date.now(),
    state: 'done',
    liked: 0,
    model: null,
    error: null,
    seq: 0,
    local: true,
  };
  return { ...log, messages: [...log.messages, msg] };
}

/** Makes sure the reply `msgId` is in the log (chat/start answered before its first frame). */
export function ensureReply(log: ChatLog, msgId: string): ChatLog {
  if (log.messages.some((m) => m.msg_id === msgId)) return log;
  return drain({ ...log, messages: [...log.messages, streamingReply(msgId, nextIdx(log.messages))] }, msgId);
}

/** Removes a message (deleted, or a regenerated reply being replaced). */
export function removeMessage(log: ChatLog, msgId: string): ChatLog {
  const pending = { ...log.pending };
  delete pending[msgId];
  return { ...log, messages: log.messages.filter((m) => m.msg_id !== msgId), pending, gap: Object.keys(pending).length > 0 };
}

/** Changes one message's fields (edit, like, continue). */
export function patchMessage(log: ChatLog, msgId: string, patch: Partial<ChatMessage>): ChatLog {
  return { ...log, messages: log.messages.map((m) => (m.msg_id === msgId ? { ...m, ...patch } : m)) };
}

/** The reply being written, if any. */
export function streamingMessage(log: ChatLog): ChatMessage | null {
  for (let i = log.messages.length - 1; i >= 0; i--) {
    const m = log.messages[i]!;
    if (m.role === 'assistant' && m.state === 'streaming') return m;
  }
  return null;
}

/** The newest message when it is the assistant's (the one regenerate and continue act on). */
export function lastReply(log: ChatLog): ChatMessage | null {
  const last = log.messages[log.messages.length - 1];
  return last && last.role === 'assistant' ? last : null;
}

// ---------------------------------------------------------------------------
// Older pages (message/list with before_idx).

/** Whether an older page may exist: the first message held is not the session's first and no read said "no more". */
export function canLoadOlder(log: ChatLog): boolean {
  const first = log.messages[0];
  return log.loaded && log.olderEnd !== true && first !== undefined && first.local !== true && first.idx > 0;
}

/** The `before_idx` of the next older page, or null when none is held to page from. */
export function olderCursor(log: ChatLog): number | null {
  const first = log.messages.find((m) => m.local !== true);
  return first === undefined ? null : first.idx;
}

/**
 * Puts an older page (oldest first) in front of the messages held; messages
 * already held win (they may have streamed on). A page shorter than `limit`
 * means nothing older is left.
 */
export function prependOlder(log: ChatLog, items: readonly ChatMessage[], limit: number): ChatLog {
  const held = new Set(log.messages.map((m) => m.msg_id));
  const older = items.filter((m) => !held.has(m.msg_id));
  const messages = [...older, ...log.messages].sort((a, b) => a.idx - b.idx);
  return { ...log, messages, olderEnd: items.length < limit || older.length === 0 };
}
