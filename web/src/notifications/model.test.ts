import { describe, expect, it } from 'vitest';
import type { Notification } from '../square/types';
import { applyPage, applyPushed, badgeText, EMPTY_NOTIFICATIONS, markAllRead, parseNotification } from './model';

function n(id: string, create_at: number, extra: Partial<Notification> = {}): Notification {
  return { id, kind: 'like', actor: { id: 'b', name: 'Bea' }, obj_id: 'w1', obj_type: 4, text: 'Cat', create_at, read: false, unread: 0, ...extra };
}

describe('frame 13 content', () => {
  it('reads a square notification', () => {
    const got = parseNotification({ id: 'n1', kind: 'follow', actor: { id: 'b', name: 'Bea' }, create_at: 5, read: false, unread: 3 });
    expect(got).toMatchObject({ id: 'n1', kind: 'follow', obj_id: null, unread: 3, text: '' });
  });

  it('reads a moderator’s decision, with or without an actor', () => {
    const got = parseNotification({ id: 'n2', kind: 'moderation', obj_id: 'w1', obj_type: 4, text: 'Hidden: nudity', create_at: 7 });
    expect(got).toMatchObject({ id: 'n2', kind: 'moderation', actor: { id: '' }, obj_id: 'w1', text: 'Hidden: nudity' });
    expect(parseNotification({ id: 'n3', kind: 'moderation', actor: { id: 'm1', name: 'Mo' }, text: 'ok' })?.actor.id).toBe('m1');
  });

  it('ignores other notices on frame 13', () => {
    expect(parseNotification({ kind: 'channel.members', channel_id: 'c1' })).toBeNull();
    expect(parseNotification({ id: 'x', kind: 'like' })).toBeNull();
    expect(parseNotification(null)).toBeNull();
    expect(parseNotification('like')).toBeNull();
  });
});

describe('unread reducer', () => {
  it('takes the count a push carries and lists it once', () => {
    let s = applyPushed(EMPTY_NOTIFICATIONS, n('a', 1, { unread: 4 }));
    expect(s.unread).toBe(4);
    s = applyPushed(s, n('a', 1, { unread: 4 }));
    expect(s.items).toHaveLength(1);
    expect(s.unread).toBe(4);
    s = applyPushed(s, n('b', 2));
    expect(s.unread).toBe(5);
    expect(s.items.map((x) => x.id)).toEqual(['b', 'a']);
  });

  it('a page sets the count from the server and merges without duplicates', () => {
    let s = applyPushed(EMPTY_NOTIFICATIONS, n('c', 3, { unread: 9 }));
    s = applyPage(s, { items: [n('c', 3), n('b', 2)], next_cursor: 'k', unread: 2 }, true);
    expect(s.unread).toBe(2);
    expect(s.items.map((x) => x.id)).toEqual(['c', 'b']);
    expect(s.cursor).toBe('k');
    s = applyPage(s, { items: [n('b', 2), n('a', 1)], next_cursor: null, unread: 0 }, false);
    expect(s.items.map((x) => x.id)).toEqual(['c', 'b', 'a']);
    expect(s.unread).toBe(2);
    expect(s.cursor).toBeNull();
  });

  it('reading all clears the count and marks the items', () => {
    const s = markAllRead(applyPage(EMPTY_NOTIFICATIONS, { items: [n('a', 1)], next_cursor: null, unread: 1 }, true));
    expect(s.unread).toBe(0);
    expect(s.items.every((x) => x.read)).toBe(true);
    // A push after that counts from zero again.
    expect(applyPushed(s, n('z', 9)).unread).toBe(1);
  });

  it('caps the badge', () => {
    expect(badgeText(0)).toBe('');
    expect(badgeText(7)).toBe('7');
    expect(badgeText(100)).toBe('99+');
  });
});
