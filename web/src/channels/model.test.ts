import { describe, expect, it } from 'vitest';
import {
  applyHistoryPage,
  applyPush,
  badgeText,
  canModerate,
  countPush,
  EMPTY_LOG,
  markRead,
  mergeMessages,
  oldestSeq,
  parseChannel,
  parseMember,
  parseMessage,
  totalUnread,
  unreadFromChannels,
} from './model';
import type { ChannelMessage } from './model';

function msg(seq: number, over: Partial<ChannelMessage> = {}): ChannelMessage {
  return {
    channel_id: 'c1',
    seq,
    sender: 'a',
    sender_name: null,
    kind: 'text',
    content: `m${seq}`,
    image: null,
    created_at: null,
    ...over,
  };
}

const seqs = (items: readonly ChannelMessage[]) => items.map((m) => m.seq);

describe('merging history and pushes by seq', () => {
  it('sorts, drops duplicates and lets the later copy win', () => {
    const merged = mergeMessages([msg(3), msg(1)], [msg(2), msg(3, { content: 'edited' })]);
    expect(seqs(merged)).toEqual([1, 2, 3]);
    expect(merged[2]!.content).toBe('edited');
  });

  it('merges a newest-first history page with pushes that arrived before it', () => {
    let log = applyPush(EMPTY_LOG, msg(11));
    log = applyPush(log, msg(12));
    log = applyHistoryPage(log, [msg(12), msg(11), msg(10), msg(9)], { limit: 4, older: false });
    expect(seqs(log.items)).toEqual([9, 10, 11, 12]);
    expect(log.loaded).toBe(true);
    expect(log.hasOlder).toBe(true);
    expect(log.gap).toBe(false);
  });

  it('pages older messages until a short page says nothing is left', () => {
    let log = applyHistoryPage(EMPTY_LOG, [msg(6), msg(5), msg(4)], { limit: 3, older: false });
    expect(oldestSeq(log)).toBe(4);
    log = applyHistoryPage(log, [msg(3), msg(2), msg(1)], { limit: 3, older: true });
    expect(log.hasOlder).toBe(true);
    log = applyHistoryPage(log, [], { limit: 3, older: true });
    expect(log.hasOlder).toBe(false);
    expect(seqs(log.items)).toEqual([1, 2, 3, 4, 5, 6]);
    // Re-reading the newest page later keeps "nothing older".
    log = applyHistoryPage(log, [msg(7), msg(6), msg(5)], { limit: 3, older: false });
    expect(log.hasOlder).toBe(false);
    expect(seqs(log.items)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('a short first page means the whole history is loaded', () => {
    const log = applyHistoryPage(EMPTY_LOG, [msg(2), msg(1)], { limit: 30, older: false });
    expect(log.hasOlder).toBe(false);
  });

  it('appends pushes in order without duplicates and notes a gap', () => {
    let log = applyHistoryPage(EMPTY_LOG, [msg(2), msg(1)], { limit: 30, older: false });
    log = applyPush(log, msg(3));
    log = applyPush(log, msg(3));
    expect(seqs(log.items)).toEqual([1, 2, 3]);
    expect(log.gap).toBe(false);
    log = applyPush(log, msg(6));
    expect(log.gap).toBe(true);
    log = applyHistoryPage(log, [msg(6), msg(5), msg(4)], { limit: 30, older: false });
    expect(log.gap).toBe(false);
    expect(seqs(log.items)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('a push before any history is kept without a gap', () => {
    const log = applyPush(applyPush(EMPTY_LOG, msg(5)), msg(9));
    expect(log.gap).toBe(false);
    expect(seqs(log.items)).toEqual([5, 9]);
  });
});

describe('unread counters', () => {
  const ctx = { openChannel: 'c2', me: 'me' };

  it('counts messages from others in channels not on screen', () => {
    let u = countPush({}, { channel_id: 'c1', sender: 'a' }, ctx);
    u = countPush(u, { channel_id: 'c1', sender: 'b' }, ctx);
    expect(u).toEqual({ c1: 2 });
  });

  it('does not count the open channel or one’s own messages', () => {
    expect(countPush({}, { channel_id: 'c2', sender: 'a' }, ctx)).toEqual({});
    expect(countPush({}, { channel_id: 'c1', sender: 'me' }, ctx)).toEqual({});
  });

  it('reading clears one channel; totals and badges', () => {
    const u = { c1: 3, c3: 120 };
    expect(markRead(u, 'c1')).toEqual({ c3: 120 });
    expect(markRead(u, 'zz')).toBe(u);
    expect(totalUnread(u)).toBe(123);
    expect(badgeText(3)).toBe('3');
    expect(badgeText(120)).toBe('99+');
  });

  it('takes the server’s counters from the channel list', () => {
    const channels = [parseChannel({ channel_id: 'c1', name: 'a', unread: 2 }), parseChannel({ id: 7, name: 'b' })];
    expect(unreadFromChannels(channels.filter((c) => c !== null))).toEqual({ c1: 2 });
  });
});

describe('decoding', () => {
  it('reads channels tolerantly', () => {
    expect(parseChannel({ channel_id: 'x', name: 'Art', private: true, invite_code: 'ABC', role: 'owner', extra: 1 })).toEqual({
      channel_id: 'x',
      name: 'Art',
      private: true,
      invite_code: 'ABC',
      role: 'owner',
      unread: 0,
      last_seq: 0,
    });
    expect(parseChannel({ name: 'no id' })).toBeNull();
    expect(parseChannel({ id: 3, role: 2, unread_count: '4' })?.role).toBe('admin');
  });

  it('reads members and roles', () => {
    expect(parseMember({ account_id: 'u1', name: 'Ada', role: 'admin' })).toEqual({
      account_id: 'u1',
      name: 'Ada',
      role: 'admin',
      avatar: null,
    });
    expect(parseMember({ id: 'u2' })?.role).toBe('member');
    expect(canModerate('owner')).toBe(true);
    expect(canModerate('member')).toBe(false);
    expect(canModerate(null)).toBe(false);
  });

  it('reads frame-12 contents and history items', () => {
    expect(parseMessage({ channel_id: 'c1', seq: 4, sender: 'u1', content: 'hi', created_at: 1_700_000_000 })).toMatchObject({
      seq: 4,
      sender: 'u1',
      kind: 'text',
      content: 'hi',
      created_at: 1_700_000_000_000,
    });
    expect(parseMessage({ seq: 2, sender: { account_id: 'u2', name: 'Bo' }, content: 'x' }, 'c9')).toMatchObject({
      channel_id: 'c9',
      sender: 'u2',
      sender_name: 'Bo',
    });
    expect(parseMessage({ channel_id: 'c1', content: 'no seq' })).toBeNull();
  });

  it('finds the image of a task message', () => {
    const beside = parseMessage({ channel_id: 'c', seq: 1, sender: 'u', kind: 'task', content: 'a cat', task: { img_uris: ['/files/a.png'] } });
    expect(beside?.image).toBe('/files/a.png');
    const inside = parseMessage({
      channel_id: 'c',
      seq: 2,
      sender: 'u',
      kind: 'task',
      content: JSON.stringify({ prompt: 'a dog', img_uris: [{ url: '/files/b.png' }] }),
    });
    expect(inside).toMatchObject({ image: '/files/b.png', content: 'a dog' });
  });
});

describe('server shapes (protocol/src/im.rs)', () => {
  it('reads a task message whose content is a SharedTask object', () => {
    const m = parseMessage({
      channel_id: 'c',
      seq: 7,
      sender: 'u',
      sender_name: 'U',
      kind: 'task',
      content: { task_id: 't1', img_uris: ['/files/t1/0.png'], prompt: 'a red fox' },
      create_at: 1_763_000_000_000,
    });
    expect(m).toMatchObject({ kind: 'task', image: '/files/t1/0.png', content: 'a red fox', created_at: 1_763_000_000_000 });
  });

  it('follows has_more when the server sends it', () => {
    const full = [msg(3), msg(2)];
    expect(applyHistoryPage(EMPTY_LOG, full, { limit: 2, older: false, hasMore: false }).hasOlder).toBe(false);
    expect(applyHistoryPage(EMPTY_LOG, [msg(1)], { limit: 2, older: true, hasMore: true }).hasOlder).toBe(true);
  });
});
