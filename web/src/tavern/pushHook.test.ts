import { describe, expect, it } from 'vitest';
import { socketStateAtom } from '../socket/atoms';
import { FrameType } from '../socket/frames';
import type { PushFrame } from '../socket/frames';
import { createAppStore } from '../state/jotai';
import { chatLogsAtom, chatResyncAtom, openSessionAtom, sessionBadgesAtom, sessionListStaleAtom } from './atoms';
import { EMPTY_LOG, mergeList } from './model';
import { applyTavernFrame, applyTavernResync, watchReconnects } from './pushHook';

function push(session_id: string, msg_id: string, seq: number, delta: string, done = false, state?: 'done' | 'cancelled'): PushFrame {
  return { type: FrameType.ChatStream, seq: 100 + seq, content: { session_id, msg_id, seq, delta, done, ...(state ? { state } : {}) } };
}

describe('tavern push hook', () => {
  it('streams the open session and counts finished replies elsewhere', () => {
    const store = createAppStore();
    store.set(openSessionAtom, 'a');
    store.set(chatLogsAtom, { a: mergeList(EMPTY_LOG, []) });
    applyTavernFrame(store, push('a', 'r', 1, 'Hel'));
    applyTavernFrame(store, push('a', 'r', 2, 'lo'));
    applyTavernFrame(store, push('a', 'r', 2, 'lo'));
    expect(store.get(chatLogsAtom).a?.messages[0]?.content).toBe('Hello');
    applyTavernFrame(store, push('a', 'r', 3, '', true, 'done'));
    expect(store.get(chatLogsAtom).a?.messages[0]?.state).toBe('done');
    expect(store.get(chatResyncAtom)).toBe(1);
    expect(store.get(sessionBadgesAtom)).toEqual({});

    applyTavernFrame(store, push('b', 'x', 1, 'other'));
    expect(store.get(chatLogsAtom).b).toBeUndefined();
    applyTavernFrame(store, push('b', 'x', 2, '', true, 'done'));
    expect(store.get(sessionBadgesAtom)).toEqual({ b: 1 });
    expect(store.get(sessionListStaleAtom)).toBe(2);
    expect(store.get(chatResyncAtom)).toBe(1);
  });

  it('keeps frames for the open session that come before its list, and asks to resync on a gap', () => {
    const store = createAppStore();
    store.set(openSessionAtom, 'a');
    applyTavernFrame(store, push('a', 'r', 3, 'c'));
    expect(store.get(chatLogsAtom).a?.pending.r?.length).toBe(1);
    expect(store.get(chatResyncAtom)).toBe(0);
    store.set(chatLogsAtom, { a: mergeList(EMPTY_LOG, []) });
    applyTavernFrame(store, push('a', 'q', 5, 'late'));
    expect(store.get(chatResyncAtom)).toBe(1);
    applyTavernResync(store);
    expect(store.get(chatResyncAtom)).toBe(2);
  });

  it('asks to resync each time the socket comes back online', () => {
    const store = createAppStore();
    store.set(socketStateAtom, 'online');
    const stop = watchReconnects(store);
    store.set(socketStateAtom, 'reconnecting');
    expect(store.get(chatResyncAtom)).toBe(0);
    store.set(socketStateAtom, 'connecting');
    store.set(socketStateAtom, 'authenticating');
    store.set(socketStateAtom, 'online');
    expect(store.get(chatResyncAtom)).toBe(1);
    stop();
    store.set(socketStateAtom, 'reconnecting');
    store.set(socketStateAtom, 'online');
    expect(store.get(chatResyncAtom)).toBe(1);
  });
});
