// The channels feature's pure model: tolerant decoders for the server's
// channel, member and message objects (unknown fields are ignored, missing
// optional ones get defaults), the per-channel message log that merges
// history pages and live frame-12 pushes by sequence number, and the unread
// counters.

/** A member's role inside a channel. */
export type ChannelRole = 'owner' | 'admin' | 'member';

export interface Channel {
  channel_id: string;
  name: string;
  private: boolean;
  invite_code: string | null;
  /** The signed-in user's role, when the server says. */
  role: ChannelRole | null;
  /** Unread messages for the signed-in user. */
  unread: number;
  /** The channel's newest sequence number, when known. */
  last_seq: number;
}

export interface ChannelMember {
  account_id: string;
  name: string;
  role: ChannelRole;
  avatar: string | null;
}

export interface ChannelMessage {
  channel_id: string;
  seq: number;
  sender: string;
  sender_name: string | null;
  /** "text" or "task" (a shared task result); other kinds are shown as text. */
  kind: string;
  content: string;
  /** For task messages: the result image to show. */
  image: string | null;
  /** For task messages: the task the result belongs to, when the server says. */
  task_id?: string | null;
  /** Milliseconds since the epoch, when the server says. */
  created_at: number | null;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

function num(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

/** Roles arrive as names or as numbers (1 owner, 2 admin, 3 member). */
export function parseRole(v: unknown): ChannelRole | null {
  if (v === 'owner' || v === 1) return 'owner';
  if (v === 'admin' || v === 2) return 'admin';
  if (v === 'member' || v === 3) return 'member';
  return null;
}

export function canModerate(role: ChannelRole | null): boolean {
  return role === 'owner' || role === 'admin';
}

export function parseChannel(v: unknown): Channel | null {
  if (!isObject(v)) return null;
  const id = str(v.channel_id) ?? str(v.id);
  if (id === null) return null;
  return {
    channel_id: id,
    name: str(v.name) ?? '',
    private: v.private === true || v.private === 1,
    invite_code: str(v.invite_code),
    role: parseRole(v.role ?? v.my_role),
    unread: Math.max(0, num(v.unread) ?? num(v.unread_count) ?? 0),
    last_seq: num(v.last_seq) ?? num(v.seq) ?? 0,
  };
}

export function parseMember(v: unknown): ChannelMember | null {
  if (!isObject(v)) return null;
  const id = str(v.account_id) ?? str(v.id);
  if (id === null) return null;
  return {
    account_id: id,
    name: str(v.name) ?? str(v.account_name) ?? id,
    role: parseRole(v.role) ?? 'member',
    avatar: str(v.avatar),
  };
}

function firstImage(v: unknown): string | null {
  if (!isObject(v)) return null;
  const uris = v.img_uris;
  if (Array.isArray(uris)) {
    for (const u of uris) {
      const s = isObject(u) ? str(u.url) ?? str(u.uri) : str(u);
      if (s) return s;
    }
  }
  return str(v.image) ?? str(v.img_uri) ?? str(v.url);
}

/** The time fields the server may use: seconds or milliseconds, or an ISO string. */
function parseTime(v: unknown): number | null {
  const n = num(v);
  if (n !== null) return n < 1e12 ? n * 1000 : n;
  if (typeof v === 'string') {
    const t = Date.parse(v);
    return Number.isNaN(t) ? null : t;
  }
  return null;
}

/** A history item or a frame-12 content; `channelId` fills in a missing `channel_id`. */
export function parseMessage(v: unknown, channelId?: string): ChannelMessage | null {
  if (!isObject(v)) return null;
  const seq = num(v.seq);
  const channel = str(v.channel_id) ?? channelId ?? null;
  if (seq === null || channel === null) return null;
  const kind = str(v.kind) ?? str(v.type) ?? 'text';
  let content = str(v.content) ?? '';
  let image: string | null = null;
  let taskId: string | null = str(v.task_id);
  if (isObject(v.content)) {
    // A shared task (protocol/src/im.rs SharedTask): `{task_id, img_uris, prompt}`.
    image = firstImage(v.content);
    taskId = str(v.content.task_id) ?? taskId;
    content = str(v.content.prompt) ?? str(v.content.text) ?? '';
  } else if (kind === 'task') {
    // A shared result: the task object may be beside the text or inside it as JSON.
    image = firstImage(v.task) ?? firstImage(v.extra) ?? firstImage(v);
    if (image === null && content.startsWith('{')) {
      try {
        const inner: unknown = JSON.parse(content);
        image = firstImage(inner) ?? (isObject(inner) ? firstImage(inner.task) : null);
        if (isObject(inner)) content = str(inner.prompt) ?? str(inner.text) ?? '';
      } catch {
        // Plain text after all.
      }
    }
  }
  const sender = isObject(v.sender) ? str(v.sender.account_id) ?? str(v.sender.id) : str(v.sender);
  const senderName =
    str(v.sender_name) ?? (isObject(v.sender) ? str(v.sender.name) : null) ?? str(v.name);
  return {
    channel_id: channel,
    seq,
    sender: sender ?? str(v.sender_id) ?? '',
    sender_name: senderName,
    kind,
    content,
    image,
    task_id: taskId,
    created_at: parseTime(v.created_at ?? v.create_at ?? v.time),
  };
}

/** One channel's loaded messages, oldest first, each sequence number once. */
export interface ChannelLog {
  items: readonly ChannelMessage[];
  /** True once the newest history page has been read. */
  loaded: boolean;
  /** False once a history page came back shorter than asked: nothing older is left. */
  hasOlder: boolean;
  /** A push skipped sequence numbers: the newest page should be read again. */
  gap: boolean;
}

export const EMPTY_LOG: ChannelLog = { items: [], loaded: false, hasOlder: true, gap: false };

/** Merges messages into a sorted, duplicate-free list (a later copy of a seq replaces the earlier one). */
export function mergeMessages(
  existing: readonly ChannelMessage[],
  incoming: readonly ChannelMessage[],
): ChannelMessage[] {
  if (incoming.length === 0) return [...existing];
  const bySeq = new Map<number, ChannelMessage>();
  for (const m of existing) bySeq.set(m.seq, m);
  for (const m of incoming) bySeq.set(m.seq, m);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

/** A history page (any order; the server sends newest first) merged into a log. */
export function applyHistoryPage(
  log: ChannelLog,
  page: readonly ChannelMessage[],
  opts: { limit: number; older: boolean; hasMore?: boolean | null },
): ChannelLog {
  const items = mergeMessages(log.items, page);
  // The server's `has_more` when it says; else a full page means there may be more.
  const more = opts.hasMore ?? page.length >= opts.limit;
  return {
    items,
    loaded: true,
    // A page of older messages, or the first page, tells whether anything older
    // is left; re-reading the newest page later does not change what is known.
    hasOlder: opts.older || !log.loaded ? more : log.hasOlder,
    gap: opts.older ? log.gap : false,
  };
}

/** A live message merged into a log; notes a gap when sequence numbers were skipped. */
export function applyPush(log: ChannelLog, msg: ChannelMessage): ChannelLog {
  const last = log.items.length > 0 ? log.items[log.items.length - 1]!.seq : null;
  const gap = log.loaded && last !== null && msg.seq > last + 1;
  return { ...log, items: mergeMessages(log.items, [msg]), gap: log.gap || gap };
}

/** The `before_seq` for the next older page, or null when nothing is loaded. */
export function oldestSeq(log: ChannelLog): number | null {
  return log.items.length > 0 ? log.items[0]!.seq : null;
}

export function newestSeq(log: ChannelLog): number | null {
  return log.items.length > 0 ? log.items[log.items.length - 1]!.seq : null;
}

/** Unread counters by channel id. */
export type UnreadCounts = Readonly<Record<string, number>>;

/**
 * A push's effect on the unread counters: a message from someone else in a
 * channel that is not open counts one; the open channel and one's own
 * messages do not.
 */
export function countPush(
  unread: UnreadCounts,
  msg: Pick<ChannelMessage, 'channel_id' | 'sender'>,
  ctx: { openChannel: string | null; me: string | null },
): UnreadCounts {
  if (msg.channel_id === ctx.openChannel) return unread;
  if (ctx.me !== null && msg.sender === ctx.me) return unread;
  return { ...unread, [msg.channel_id]: (unread[msg.channel_id] ?? 0) + 1 };
}

/** Opening (reading) a channel clears its counter. */
export function markRead(unread: UnreadCounts, channelId: string): UnreadCounts {
  if (!unread[channelId]) return unread;
  const next = { ...unread };
  delete next[channelId];
  return next;
}

/** The counters from a channel list (the server's numbers win over local counting). */
export function unreadFromChannels(channels: readonly Channel[]): UnreadCounts {
  const out: Record<string, number> = {};
  for (const c of channels) if (c.unread > 0) out[c.channel_id] = c.unread;
  return out;
}

export function totalUnread(unread: UnreadCounts): number {
  return Object.values(unread).reduce((a, b) => a + b, 0);
}

/** A badge's text: the count, capped at "99+". */
export function badgeText(n: number): string {
  return n > 99 ? '99+' : String(n);
}
