import { describe, expect, it } from 'vitest';
import { accountAtom } from '../account/atoms';
import { FrameType } from '../socket/frames';
import type { PushFrame } from '../socket/frames';
import { createAppStore } from '../state/jotai';
import { recentFramesAtom } from '../socket/atoms';
import { channelListStaleAtom, channelLogsAtom, channelsAtom, membersStaleAtom, openChannelAtom, unreadAtom } from './atoms';
import { applyChannelFrame, applyChannelResync, watchMemberNotices } from './pushHook';
import { canKick } from './MemberList';
import { parseChannel } from './model';
import { channelIdFromPath, channelPath, isChannelsPath } from './route';

function frame(channel_id: string, seq: number, sender: string): PushFrame {
  return { type: FrameType.ImMessage, seq: 100 + seq, content: { channel_id, seq, sender, content: `m${seq}` } };
}

describe('frame 12 into the channel atoms', () => {
  it('appends in seq order without duplicates and counts unread for other channels', () => {
    const store = createAppStore();
    store.set(accountAtom, { id: 'me', name: 'Me', email: 'me@example.com', create_at: 0, status: 1 });
    store.set(openChannelAtom, 'c1');
    store.set(channelsAtom, [parseChannel({ channel_id: 'c1' })!, parseChannel({ channel_id: 'c2' })!]);
    for (const f of [frame('c1', 2, 'a'), frame('c1', 1, 'b'), frame('c1', 2, 'a'), frame('c2', 1, 'a'), frame('c2', 2, 'me')]) {
      applyChannelFrame(store, f);
    }
    expect(store.get(channelLogsAtom).c1!.items.map((m) => m.seq)).toEqual([1, 2]);
    expect(store.get(unreadAtom)).toEqual({ c2: 1 });
    expect(store.get(channelListStaleAtom)).toBe(0);
    applyChannelFrame(store, frame('c3', 1, 'a'));
    expect(store.get(channelListStaleAtom)).toBe(1);
  });

  it('ignores other frames; a resync marks loaded channels for reloading', () => {
    const store = createAppStore();
    applyChannelFrame(store, { type: FrameType.TaskUpdate, content: { id: 't' } });
    expect(store.get(channelLogsAtom)).toEqual({});
    store.set(channelLogsAtom, { c1: { items: [], loaded: true, hasOlder: false, gap: false } });
    applyChannelResync(store);
    expect(store.get(channelLogsAtom).c1!.gap).toBe(true);
  });
});

describe('routes and roles', () => {
  it('parses the channels paths', () => {
    expect(isChannelsPath('/channels')).toBe(true);
    expect(isChannelsPath('/channels/abc')).toBe(true);
    expect(isChannelsPath('/channels/a/b')).toBe(false);
    expect(channelIdFromPath('/channels/a%20b')).toBe('a b');
    expect(channelIdFromPath('/channels')).toBeNull();
    expect(channelPath('x y')).toBe('/channels/x%20y');
  });

  it('lets owners kick anyone else and admins kick members', () => {
    const member = { account_id: 'm', name: 'M', role: 'member' as const, avatar: null };
    const admin = { ...member, account_id: 'a', role: 'admin' as const };
    const owner = { ...member, account_id: 'o', role: 'owner' as const };
    expect(canKick('owner', member, 'o')).toBe(true);
    expect(canKick('owner', admin, 'o')).toBe(true);
    expect(canKick('owner', owner, 'o')).toBe(false);
    expect(canKick('admin', member, 'a')).toBe(true);
    expect(canKick('admin', admin, 'x')).toBe(false);
    expect(canKick('member', member, 'x')).toBe(false);
  });
});

// Module state: the frame-log fallback stands down once frame 13 arrives directly, so it is tested first.
describe('frame 13 channel.members', () => {
  it('without direct frames, a notification in the frame log re-reads the lists', () => {
    const store = createAppStore();
    const stop = watchMemberNotices(store);
    store.set(recentFramesAtom, [{ id: 1, type: FrameType.ImMessage, seq: 1, at: 0, summary: 'channel c1' }]);
    expect(store.get(membersStaleAtom)).toBe(0);
    store.set(recentFramesAtom, [
      { id: 2, type: FrameType.Notification, seq: 2, at: 0, summary: 'notification' },
      { id: 1, type: FrameType.ImMessage, seq: 1, at: 0, summary: 'channel c1' },
    ]);
    expect(store.get(membersStaleAtom)).toBe(1);
    expect(store.get(channelListStaleAtom)).toBe(1);
    stop();
  });

  it('re-reads the member and joined lists; other notices change nothing', () => {
    const store = createAppStore();
    applyChannelFrame(store, { type: FrameType.Notification, seq: 5, content: { kind: 'credits', balance: 3, available: 3 } });
    expect(store.get(membersStaleAtom)).toBe(0);
    applyChannelFrame(store, { type: FrameType.Notification, seq: 6, content: { kind: 'channel.members', channel_id: 'c1' } });
    expect(store.get(membersStaleAtom)).toBe(1);
    expect(store.get(channelListStaleAtom)).toBe(1);
    // Direct frames now arrive: the fallback no longer reacts as well.
    const stop = watchMemberNotices(store);
    store.set(recentFramesAtom, [{ id: 9, type: FrameType.Notification, seq: 6, at: 0, summary: 'notification' }]);
    expect(store.get(membersStaleAtom)).toBe(1);
    stop();
  });
});
