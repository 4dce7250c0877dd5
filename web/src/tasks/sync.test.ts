import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenAtom } from '../account/atoms';
import { toastAtom } from '../app/toast';
import { recentFramesAtom, socketStateAtom } from '../socket/atoms';
import { createAppStore } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import { creditsAtom, tasksAtom, trackTaskAtom } from './atoms';
import { POLL_MS, SUCCESS_NOTICE_MS } from './model';
import { TaskSync } from './sync';
import type { TaskApi } from './sync';
import { makeTask } from './testTask';
import type { Task } from './types';

let store: AppStore;
let calls: { path: string; body: unknown }[];
let server: Map<string, Task>;

const api: TaskApi = {
  post<T>(path: string, body?: unknown): Promise<T> {
    calls.push({ path, body });
    const answer = (() => {
      switch (path) {
        case '/api/v1/task/list':
          return { items: [...server.values()], cursor: null };
        case '/api/v1/task/batch-progress': {
          const ids = (body as { task_ids: string[] }).task_ids;
          return { items: ids.map((id) => server.get(id)).filter(Boolean) };
        }
        case '/api/v1/payment/assets/get':
          return { coins: 100, held: 2, available: 98 };
        default:
          return {};
      }
    })();
    return Promise.resolve(answer as T);
  },
};

function count(path: string): number {
  return calls.filter((c) => c.path === path).length;
}

beforeEach(() => {
  vi.useFakeTimers();
  store = createAppStore();
  calls = [];
  server = new Map();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('TaskSync', () => {
  it('loads the list and the credits on start when logged in', async () => {
    store.set(tokenAtom, 'tok');
    server.set('a', makeTask({ id: 'a', status: 2, process: 10 }));
    const stop = new TaskSync({ store, api }).start();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.get(tasksAtom).order).toEqual(['a']);
    expect(store.get(creditsAtom)).toEqual({ coins: 100, held: 2, available: 98 });
    stop();
  });

  it('polls every 3000 ms only while the socket is not online and a task runs', async () => {
    store.set(tokenAtom, 'tok');
    server.set('a', makeTask({ id: 'a', status: 2, process: 10 }));
    const sync = new TaskSync({ store, api });
    const stop = sync.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(count('/api/v1/task/batch-progress')).toBe(0);

    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(count('/api/v1/task/batch-progress')).toBe(1);

    // Online: pushes take over, no polling.
    store.set(socketStateAtom, 'online');
    await vi.advanceTimersByTimeAsync(0);
    const afterOnline = count('/api/v1/task/batch-progress'); // one catch-up fetch
    await vi.advanceTimersByTimeAsync(POLL_MS * 3);
    expect(count('/api/v1/task/batch-progress')).toBe(afterOnline);

    // Offline again with the task done: still no polling.
    server.set('a', makeTask({ id: 'a', status: 3, process: 100 }));
    sync.onPush({ type: 10, content: { ...makeTask({ id: 'a', status: 3, process: 100 }) } });
    store.set(socketStateAtom, 'reconnecting');
    await vi.advanceTimersByTimeAsync(POLL_MS * 3);
    expect(count('/api/v1/task/batch-progress')).toBe(afterOnline);
    stop();
  });

  it('merges pushes, shows the success notice for 5000 ms and refreshes credits', async () => {
    store.set(tokenAtom, 'tok');
    store.set(socketStateAtom, 'online');
    const sync = new TaskSync({ store, api });
    const stop = sync.start();
    await vi.advanceTimersByTimeAsync(0);
    sync.onPush({ type: 10, seq: 1, content: { ...makeTask({ id: 'n', process: 40 }) } });
    expect(store.get(tasksAtom).byId.n?.process).toBe(40);
    sync.onPush({ type: 10, seq: 2, content: { ...makeTask({ id: 'n', process: 20 }) } });
    expect(store.get(tasksAtom).byId.n?.process).toBe(40);
    const before = count('/api/v1/payment/assets/get');
    sync.onPush({ type: 10, seq: 3, content: { ...makeTask({ id: 'n', process: 100, status: 3 }) } });
    expect(store.get(toastAtom)?.text).toBe('Your image is ready.');
    await vi.advanceTimersByTimeAsync(0);
    expect(count('/api/v1/payment/assets/get')).toBe(before + 1);
    await vi.advanceTimersByTimeAsync(SUCCESS_NOTICE_MS - 1);
    expect(store.get(toastAtom)).not.toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(store.get(toastAtom)).toBeNull();

    sync.onPush({ type: 13, seq: 4, content: { kind: 'credits', balance: 50, available: 45 } });
    expect(store.get(creditsAtom)).toEqual({ coins: 50, available: 45, held: 5 });
    stop();
  });

  it('says a finished video task is a video', async () => {
    store.set(tokenAtom, 'tok');
    store.set(socketStateAtom, 'online');
    const sync = new TaskSync({ store, api });
    const stop = sync.start();
    await vi.advanceTimersByTimeAsync(0);
    sync.onPush({ type: 10, seq: 1, content: { ...makeTask({ id: 'v', process: 40, type: 43 }) } });
    sync.onPush({ type: 10, seq: 2, content: { ...makeTask({ id: 'v', process: 100, status: 3, type: 43, video_uris: ['/files/v.mp4'], img_uris: ['/files/v.jpg'] }) } });
    expect(store.get(toastAtom)?.text).toBe('Your video is ready.');
    stop();
  });

  it('fetches a tracked task at once and follows it', async () => {
    store.set(tokenAtom, 'tok');
    store.set(socketStateAtom, 'online');
    const stop = new TaskSync({ store, api }).start();
    await vi.advanceTimersByTimeAsync(0);
    server.set('t', makeTask({ id: 't', status: 1, process: 0, queue_position: 2 }));
    store.set(trackTaskAtom, 't');
    expect(store.get(tasksAtom).order).toEqual(['t']);
    await vi.advanceTimersByTimeAsync(0);
    expect(store.get(tasksAtom).byId.t?.queue_position).toBe(2);
    stop();
  });

  it('without a push hook, reads task ids from the frame log', async () => {
    store.set(tokenAtom, 'tok');
    store.set(socketStateAtom, 'online');
    const stop = new TaskSync({ store, api }).start();
    await vi.advanceTimersByTimeAsync(0);
    server.set('p', makeTask({ id: 'p', process: 55 }));
    store.set(recentFramesAtom, [{ id: 1, type: 10, seq: 1, at: 0, summary: 'task p' }]);
    await vi.advanceTimersByTimeAsync(100);
    expect(store.get(tasksAtom).byId.p?.process).toBe(55);
    stop();
  });

  it('reloads the list on a resync and removes user-cancelled tasks', async () => {
    store.set(tokenAtom, 'tok');
    store.set(socketStateAtom, 'online');
    server.set('a', makeTask({ id: 'a' }));
    const sync = new TaskSync({ store, api });
    const stop = sync.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.get(tasksAtom).order).toEqual(['a']);
    server.set('a', makeTask({ id: 'a', status: 4, status_desc: 'user cancelled' }));
    server.set('b', makeTask({ id: 'b', create_at: 5 }));
    sync.onResync();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.get(tasksAtom).order).toEqual(['b']);
    stop();
  });
});
