import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAppStore } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import { FakeWebSocket } from '../test/fakeWebSocket';
import { lastSeqAtom, recentFramesAtom, socketStateAtom } from './atoms';
import { HEARTBEAT_MS, RECENT_FRAMES, RECONNECT_MS, SocketClient, socketUrl } from './socket';
import type { SocketClientOptions } from './socket';

let store: AppStore;

function makeClient(extra: Partial<SocketClientOptions> = {}) {
  return new SocketClient({
    store,
    url: () => 'ws://easel.test/ws',
    createSocket: (url) => new FakeWebSocket(url),
    ...extra,
  });
}

/** Opens the latest socket and confirms auth with `stream` and `seq`. */
function goOnline(stream = 's1', seq = 0): FakeWebSocket {
  const ws = FakeWebSocket.latest();
  ws.serverOpen();
  ws.serverSend({ type: 4, content: { account_id: 'a1', stream, seq } });
  return ws;
}

beforeEach(() => {
  vi.useFakeTimers();
  FakeWebSocket.reset();
  store = createAppStore();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('socketUrl', () => {
  it('follows the page protocol and host', () => {
    expect(socketUrl({ protocol: 'http:', host: '127.0.0.1:8080' })).toBe('ws://127.0.0.1:8080/ws');
    expect(socketUrl({ protocol: 'https:', host: 'easel.example' })).toBe('wss://easel.example/ws');
  });
});

describe('SocketClient', () => {
  it('sends the auth frame first, then goes online on the first heartbeat', () => {
    const client = makeClient();
    expect(store.get(socketStateAtom)).toBe('offline');

    client.connect('tok-1');
    expect(store.get(socketStateAtom)).toBe('connecting');
    const ws = FakeWebSocket.latest();
    expect(ws.url).toBe('ws://easel.test/ws');
    expect(ws.sent).toEqual([]);

    ws.serverOpen();
    expect(ws.sent).toEqual([{ type: 7, token: 'tok-1', content: null }]);
    expect(store.get(socketStateAtom)).toBe('authenticating');

    ws.serverSend({ type: 4, content: { account_id: 'a1', stream: 's1', seq: 3 } });
    expect(store.get(socketStateAtom)).toBe('online');
    expect(store.get(lastSeqAtom)).toBe(3);
    expect(ws.sent).toHaveLength(1); // no resume on a first connection
  });

  it('sends a heartbeat every 15 s once online, and stops when closed', () => {
    const client = makeClient();
    client.connect('tok');
    const ws = goOnline();
    expect(ws.sent).toHaveLength(1);

    vi.advanceTimersByTime(HEARTBEAT_MS - 1);
    expect(ws.sent).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(ws.sent).toEqual([{ type: 7, token: 'tok', content: null }, { type: 4, content: null }]);
    vi.advanceTimersByTime(HEARTBEAT_MS * 2);
    expect(ws.sent.filter((f) => (f as { type: number }).type === 4)).toHaveLength(3);

    ws.serverClose(1006);
    const before = ws.sent.length;
    vi.advanceTimersByTime(HEARTBEAT_MS * 2);
    expect(ws.sent).toHaveLength(before);
  });

  it('does not send heartbeats before auth is confirmed', () => {
    const client = makeClient();
    client.connect('tok');
    const ws = FakeWebSocket.latest();
    ws.serverOpen();
    vi.advanceTimersByTime(HEARTBEAT_MS * 2);
    expect(ws.sent).toEqual([{ type: 7, token: 'tok', content: null }]);
  });

  it('reconnects 5 s after an unexpected close', () => {
    const client = makeClient();
    client.connect('tok');
    goOnline();
    FakeWebSocket.latest().serverClose(1006);
    expect(store.get(socketStateAtom)).toBe('reconnecting');
    expect(FakeWebSocket.instances).toHaveLength(1);

    vi.advanceTimersByTime(RECONNECT_MS - 1);
    expect(FakeWebSocket.instances).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(FakeWebSocket.instances).toHaveLength(2);
    expect(store.get(socketStateAtom)).toBe('connecting');

    const ws2 = FakeWebSocket.latest();
    ws2.serverOpen();
    expect(ws2.sent[0]).toEqual({ type: 7, token: 'tok', content: null });
  });

  it.each([4408, 4429, 1009])('reconnects after close code %i', (code) => {
    const client = makeClient();
    client.connect('tok');
    goOnline();
    FakeWebSocket.latest().serverClose(code);
    expect(store.get(socketStateAtom)).toBe('reconnecting');
    vi.advanceTimersByTime(RECONNECT_MS);
    expect(FakeWebSocket.instances).toHaveLength(2);
  });

  it('tracks the highest seq of pushed frames and keeps the last 20 in the log', () => {
    const onPush = vi.fn();
    const client = makeClient({ onPush });
    client.connect('tok');
    const ws = goOnline('s1', 0);

    ws.serverSend({ type: 10, seq: 1, content: { id: 't1', status: 2, process: 40 } });
    ws.serverSend({ type: 12, seq: 3, content: { channel_id: 'c1', seq: 9, sender: 'u', content: 'hi' } });
    ws.serverSend({ type: 13, seq: 2, content: { title: 'late' } });
    expect(store.get(lastSeqAtom)).toBe(3);
    expect(onPush).toHaveBeenCalledTimes(3);
    expect(store.get(recentFramesAtom).map((f) => [f.type, f.seq])).toEqual([
      [13, 2],
      [12, 3],
      [10, 1],
    ]);
    expect(store.get(recentFramesAtom)[1]?.summary).toBe('channel c1');

    for (let i = 4; i < 4 + 25; i++) {
      ws.serverSend({ type: 11, seq: i, content: { session_id: 'x', msg_id: 'm', seq: i, delta: 'a', done: false } });
    }
    const log = store.get(recentFramesAtom);
    expect(log).toHaveLength(RECENT_FRAMES);
    expect(log[0]?.seq).toBe(28);
    expect(store.get(lastSeqAtom)).toBe(28);
  });

  it('logs error frames and ignores garbage', () => {
    const client = makeClient();
    client.connect('tok');
    const ws = goOnline();
    ws.serverSendRaw('not json');
    ws.serverSendRaw('{"type": 99}');
    ws.serverSend({ type: 10, seq: 1, content: 'no id' });
    expect(store.get(recentFramesAtom)).toEqual([]);
    ws.serverSend({ type: 14, content: { code: 42900, key: 'TooManyRequests', msg: 'slow down' } });
    expect(store.get(recentFramesAtom)).toMatchObject([{ type: 14, seq: null, summary: 'TooManyRequests' }]);
    expect(store.get(socketStateAtom)).toBe('online');
  });

  it('after a reconnect, sends a resume with the old stream and last_seq, then follows the answer', () => {
    const onResyncNeeded = vi.fn();
    const client = makeClient({ onResyncNeeded });
    client.connect('tok');
    const ws1 = goOnline('s1', 5);
    ws1.serverSend({ type: 10, seq: 6, content: { id: 't1' } });
    ws1.serverSend({ type: 10, seq: 7, content: { id: 't1' } });
    ws1.serverClose(1006);
    vi.advanceTimersByTime(RECONNECT_MS);

    const ws2 = FakeWebSocket.latest();
    ws2.serverOpen();
    expect(ws2.sent).toEqual([{ type: 7, token: 'tok', content: null }]);
    ws2.serverSend({ type: 4, content: { account_id: 'a1', stream: 's2', seq: 0 } });
    expect(store.get(socketStateAtom)).toBe('online');
    expect(ws2.sent[1]).toEqual({ type: 15, content: { last_seq: 7, stream: 's1' } });

    // The replayed frame, then the answer.
    ws2.serverSend({ type: 12, seq: 8, content: { channel_id: 'c', seq: 1, sender: 'u', content: 'missed' } });
    expect(store.get(lastSeqAtom)).toBe(8);
    ws2.serverSend({ type: 15, content: { resumed: true, replayed: 1, seq: 8, stream: 's1' } });
    expect(store.get(lastSeqAtom)).toBe(8);
    expect(onResyncNeeded).not.toHaveBeenCalled();

    // The next reconnect resumes the stream named by the answer.
    ws2.serverClose(1001);
    vi.advanceTimersByTime(RECONNECT_MS);
    const ws3 = FakeWebSocket.latest();
    ws3.serverOpen();
    ws3.serverSend({ type: 4, content: { account_id: 'a1', stream: 's3', seq: 0 } });
    expect(ws3.sent[1]).toEqual({ type: 15, content: { last_seq: 8, stream: 's1' } });
  });

  it('asks for a resync when the server could not resume, and follows the new stream', () => {
    const onResyncNeeded = vi.fn();
    const client = makeClient({ onResyncNeeded });
    client.connect('tok');
    goOnline('s1', 40).serverClose(1006);
    vi.advanceTimersByTime(RECONNECT_MS);
    const ws2 = goOnline('s2', 2);
    expect(ws2.sent[1]).toEqual({ type: 15, content: { last_seq: 40, stream: 's1' } });
    ws2.serverSend({ type: 15, content: { resumed: false, replayed: 0, seq: 2, stream: 's2' } });
    expect(onResyncNeeded).toHaveBeenCalledWith({ resumed: false, replayed: 0, seq: 2, stream: 's2' });
    expect(store.get(lastSeqAtom)).toBe(2);

    ws2.serverClose(1006);
    vi.advanceTimersByTime(RECONNECT_MS);
    const ws3 = goOnline('s3', 0);
    expect(ws3.sent[1]).toEqual({ type: 15, content: { last_seq: 2, stream: 's2' } });
  });

  it.each([4401, 4403])('on close %i stops for good and reports the bad token', (code) => {
    const onBadToken = vi.fn();
    const client = makeClient({ onBadToken });
    client.connect('expired');
    FakeWebSocket.latest().serverOpen();
    FakeWebSocket.latest().serverClose(code);
    expect(store.get(socketStateAtom)).toBe('offline');
    expect(onBadToken).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(RECONNECT_MS * 10);
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it('disconnect closes the socket, cancels a pending reconnect and forgets the stream', () => {
    const client = makeClient();
    client.connect('tok');
    const ws = goOnline('s1', 4);
    client.disconnect();
    expect(ws.closedByClient).toBe(1000);
    expect(store.get(socketStateAtom)).toBe('offline');
    expect(store.get(lastSeqAtom)).toBeNull();

    client.connect('tok');
    FakeWebSocket.latest().serverClose(1006);
    client.disconnect();
    vi.advanceTimersByTime(RECONNECT_MS * 2);
    expect(FakeWebSocket.instances).toHaveLength(2);
    expect(store.get(socketStateAtom)).toBe('offline');

    // A fresh login starts a fresh stream: no resume.
    client.connect('tok');
    const ws3 = goOnline('s9', 0);
    expect(ws3.sent).toEqual([{ type: 7, token: 'tok', content: null }]);
  });

  it('connect with the same token keeps the socket; another token replaces it', () => {
    const client = makeClient();
    client.connect('a');
    const ws1 = goOnline();
    client.connect('a');
    expect(FakeWebSocket.instances).toHaveLength(1);

    client.connect('b');
    expect(ws1.closedByClient).toBe(1000);
    expect(FakeWebSocket.instances).toHaveLength(2);
    // Events from the replaced socket are ignored.
    ws1.serverClose(4401);
    expect(store.get(socketStateAtom)).toBe('connecting');
    const ws2 = goOnline('s2', 0);
    expect(ws2.sent).toEqual([{ type: 7, token: 'b', content: null }]);
  });

  it('retries in 5 s when the socket cannot even be created', () => {
    let fail = true;
    const client = makeClient({
      createSocket: (url) => {
        if (fail) throw new Error('blocked');
        return new FakeWebSocket(url);
      },
    });
    client.connect('tok');
    expect(store.get(socketStateAtom)).toBe('reconnecting');
    fail = false;
    vi.advanceTimersByTime(RECONNECT_MS);
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(store.get(socketStateAtom)).toBe('connecting');
  });
});
