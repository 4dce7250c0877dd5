import { describe, expect, it } from 'vitest';
import { accountAtom } from '../account/atoms';
import { FrameType } from '../socket/frames';
import type { PushFrame } from '../socket/frames';
import { createAppStore } from '../state/jotai';
import { channelListStaleAtom, channelLogsAtom, channelsAtom, openChannelAtom, unreadAtom } from './atoms';
import { applyChannelFrame, applyChannelResync } from './pushHook';
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
