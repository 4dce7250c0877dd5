// The training page follows a training by the socket's task frames: no
// batch-progress polling while the socket is online, the pushed percent
// shown at once, one progress read when the frame says it ended (the
// server applies the result then), and polling again only while the
// socket is down.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startRouter } from '../router/router';
import { FrameType } from '../socket/frames';
import { socketStateAtom } from '../socket/atoms';
import { appStore, Provider } from '../state/jotai';
import { trainingPushHook } from './trainPush';
import { TrainPage } from './TrainPage';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let progressCalls: unknown[];
let progressAnswer: Record<string, unknown>;
let container: HTMLDivElement;
let root: Root;
let stopRouter: () => void;

async function flush() {
  await act(async () => {
    for (let i = 0; i < 8; i++) await Promise.resolve();
  });
}

const training = () => container.querySelector<HTMLElement>('[data-testid="training"]');

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  progressCalls = [];
  progressAnswer = { task_id: 't1', status: 2, percent: 70, name: 'Ink' };
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = new URL(String(input), 'http://x').pathname;
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : null;
    let data: unknown = null;
    if (path === '/api/v1/task/v2/config/model') data = { families: [{ id: 'sd', name: 'SD' }] };
    if (path === '/api/v1/train-model/in-progress-list') data = { items: [{ task_id: 't1', status: 2, percent: 10, name: 'Ink', model_id: 'm1', model_ver_no: 'v1' }] };
    if (path === '/api/v1/train-model/batch-progress') {
      progressCalls.push(body);
      data = { items: [progressAnswer] };
    }
    return new Response(JSON.stringify({ status: { code: 10000, key: null, msg: '' }, data }), { headers: { 'Content-Type': 'application/json' } });
  });
  window.history.replaceState(null, '', '/en/models/train');
  stopRouter = startRouter(appStore);
  appStore.set(socketStateAtom, 'online');
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
  stopRouter();
  appStore.set(socketStateAtom, 'offline');
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

const push = (content: Record<string, unknown>) => act(() => trainingPushHook({ type: FrameType.TaskUpdate, seq: 1, content: { id: 't1', ...content } }));

describe('the training page', () => {
  it('follows progress frames while online and polls only while the socket is down', async () => {
    act(() =>
      root.render(
        <Provider store={appStore}>
          <TrainPage />
        </Provider>,
      ),
    );
    await flush();
    expect(training()?.textContent).toContain('10%');
    act(() => vi.advanceTimersByTime(10_000));
    await flush();
    expect(progressCalls).toEqual([]);

    push({ status: 2, process: 60 });
    expect(training()?.textContent).toContain('60%');
    // A frame of another task changes nothing.
    push({ id: 't9', status: 2, process: 5 });
    expect(training()?.textContent).toContain('60%');

    // The socket goes down: polled.
    act(() => appStore.set(socketStateAtom, 'reconnecting'));
    act(() => vi.advanceTimersByTime(2_000));
    await flush();
    expect(progressCalls).toEqual([{ task_ids: ['t1'] }]);
    expect(training()?.textContent).toContain('70%');
    // Back online: read once (frames sent meanwhile are not replayed), then no polling.
    act(() => appStore.set(socketStateAtom, 'online'));
    await flush();
    expect(progressCalls).toHaveLength(2);
    act(() => vi.advanceTimersByTime(10_000));
    await flush();
    expect(progressCalls).toHaveLength(2);

    // The frame that ends it: one read applies the result.
    progressAnswer = { task_id: 't1', status: 3, percent: 100, name: 'Ink', model_id: 'm1', model_ver_no: 'v2' };
    push({ status: 3, process: 100 });
    await flush();
    expect(progressCalls).toHaveLength(3);
    expect(training()?.getAttribute('data-status')).toBe('3');
    expect(training()?.querySelector('a')?.getAttribute('href')).toBe('/en/models/detail/m1?ver=v2');
  });
});
