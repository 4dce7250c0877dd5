// Notifications as pure functions: reading frame 13's content (a like,
// collect, comment, reply or follow; other frame-13 notices such as a
// channel's member change are not ours), and the list and unread count as a
// reducer that never shows one notification twice.
import type { Notification, NotificationKind, NotificationPage } from '../square/types';

export const NOTIFICATION_KINDS: readonly NotificationKind[] = ['like', 'collect', 'comment', 'reply', 'follow', 'moderation', 'activity'];

export interface NotificationState {
  items: Notification[];
  unread: number;
  cursor: string | null;
  /** The first page has answered. */
  loaded: boolean;
}

export const EMPTY_NOTIFICATIONS: NotificationState = { items: [], unread: 0, cursor: null, loaded: false };

/** Frame 13's content as a notification, or null when it is another kind of notice. */
export function parseNotification(content: unknown): Notification | null {
  if (typeof content !== 'object' || content === null) return null;
  const c = content as Record<string, unknown>;
  if (typeof c.id !== 'string' || c.id === '') return null;
  if (typeof c.kind !== 'string' || !(NOTIFICATION_KINDS as readonly string[]).includes(c.kind)) return null;
  // A moderator's decision may come without an actor (moderators stay anonymous).
  const actor = (c.actor ?? (c.kind === 'moderation' ? { id: '' } : null)) as Record<string, unknown> | null | undefined;
  if (typeof actor !== 'object' || actor === null || typeof actor.id !== 'string') return null;
  return {
    id: c.id,
    kind: c.kind as NotificationKind,
    actor: { id: actor.id, name: typeof actor.name === 'string' ? actor.name : '', avatar: typeof actor.avatar === 'string' ? actor.avatar : null },
    obj_id: typeof c.obj_id === 'string' ? c.obj_id : null,
    obj_type: typeof c.obj_type === 'number' ? c.obj_type : null,
    text: typeof c.text === 'string' ? c.text : '',
    create_at: typeof c.create_at === 'number' ? c.create_at : 0,
    read: c.read === true,
    unread: typeof c.unread === 'number' && c.unread >= 0 ? c.unread : 0,
  };
}

function newestFirst(a: Notification, b: Notification): number {
  return b.create_at - a.create_at;
}

/**
 * A pushed notification: it goes first in the list (once, however often it
 * is pushed or replayed), and the unread count becomes the server's count
 * carried by the frame (one more than before when the frame has none); a
 * replayed frame that is already listed changes nothing.
 */
export function applyPushed(s: NotificationState, n: Notification): NotificationState {
  if (s.items.some((x) => x.id === n.id)) return s;
  const unread = n.read ? s.unread : n.unread > 0 ? n.unread : s.unread + 1;
  return { ...s, items: [n, ...s.items].sort(newestFirst), unread };
}

/** A list page: the first replaces the count (the server's is the truth) and merges; later pages append. */
export function applyPage(s: NotificationState, page: NotificationPage, first: boolean): NotificationState {
  const byId = new Map<string, Notification>();
  for (const n of first ? [...page.items, ...s.items] : [...s.items, ...page.items]) if (!byId.has(n.id)) byId.set(n.id, n);
  const items = [...byId.values()].sort(newestFirst);
  return { items, unread: first ? page.unread : s.unread, cursor: page.items.length === 0 ? null : page.next_cursor, loaded: true };
}

/** Everything read (after `notification/read`). */
export function markAllRead(s: NotificationState): NotificationState {
  return { ...s, unread: 0, items: s.items.map((n) => (n.read ? n : { ...n, read: true })) };
}

/** The bell's badge: the count, capped as "99+". */
export function badgeText(unread: number): string {
  return unread <= 0 ? '' : unread > 99 ? '99+' : String(unread);
}
