// The tool press: checked before any call, posted once, the server's key
// shown (NeedLogin opens the login popup, CoinsNotEnough the recharge dialog).
import { describe, expect, it, vi } from 'vitest';
import { loginDialogAtom } from '../account/atoms';
import { ApiError } from '../api/client';
import type { ApiClient } from '../api/client';
import { rechargeOpenAtom } from '../mall/atoms';
import { COINS_NOT_ENOUGH } from '../mall/errors';
import { createAppStore } from '../state/jotai';
import { runVideoTool, videoToolBusyAtom, videoToolProblemAtom, videoUploadAtom } from './toolRun';
import { DEFAULT_TOOL_OPTIONS } from './tools';
import type { VideoSource } from './tools';
import { INITIAL_UPLOAD } from './upload';

const source: VideoSource = { kind: 'task', taskId: 't1', mp4: '/files/t/t1/a.mp4', poster: undefined, width: 640, height: 360, duration: 5 };

function apiAnswering(answer: () => Promise<unknown>) {
  const post = vi.fn<(path: string, body?: unknown) => Promise<unknown>>(() => answer());
  return { api: { post } as unknown as Pick<ApiClient, 'post'>, post };
}

function press(store: ReturnType<typeof createAppStore>, api: Pick<ApiClient, 'post'>, over: Partial<Parameters<typeof runVideoTool>[0]> = {}) {
  const onCreated = vi.fn();
  return { onCreated, run: runVideoTool({ store, api, tool: 'upscale', source, options: DEFAULT_TOOL_OPTIONS, loggedIn: true, onCreated, ...over }) };
}

describe('runVideoTool', () => {
  it('posts the tool call with parent_task_id and hands the id on', async () => {
    const store = createAppStore();
    const { api, post } = apiAnswering(async () => ({ id: 'new' }));
    const { run, onCreated } = press(store, api);
    expect(await run).toBe('new');
    expect(post).toHaveBeenCalledTimes(1);
    expect(post.mock.calls[0]?.[0]).toBe('/api/v1/task/v2/video/upscale');
    expect(post.mock.calls[0]?.[1]).toMatchObject({ parent_task_id: 't1', meta: { width: 1280, height: 720, generate_video: { duration: 5 } } });
    expect(onCreated).toHaveBeenCalledWith('new');
    expect(store.get(videoToolBusyAtom)).toBe(false);
  });

  it('checks before any call: no source, a visitor, an upload still running', async () => {
    const store = createAppStore();
    const { api, post } = apiAnswering(async () => ({ id: 'x' }));
    expect(await press(store, api, { source: null }).run).toBeNull();
    expect(store.get(videoToolProblemAtom)?.key).toBe('videoSourceMissing');
    expect(await press(store, api, { loggedIn: false }).run).toBeNull();
    expect(store.get(videoToolProblemAtom)?.key).toBe('NeedLogin');
    expect(store.get(loginDialogAtom).open).toBe(true);
    store.set(videoUploadAtom, { ...INITIAL_UPLOAD, status: 'pending' });
    expect(await press(store, api).run).toBeNull();
    expect(store.get(videoToolProblemAtom)?.key).toBe('videoUploadingWait');
    expect(post).not.toHaveBeenCalled();
  });

  it("shows the server's key; not enough credits opens the recharge dialog", async () => {
    const store = createAppStore();
    const { api } = apiAnswering(async () => {
      throw new ApiError({ code: 40021, key: 'uploadVideoError', msg: 'the source is not a video' }, 200);
    });
    expect(await press(store, api).run).toBeNull();
    expect(store.get(videoToolProblemAtom)).toEqual({ key: 'uploadVideoError', text: 'the source is not a video' });

    const poor = apiAnswering(async () => {
      throw new ApiError({ code: COINS_NOT_ENOUGH, key: null, msg: 'not enough' }, 200);
    });
    expect(await press(store, poor.api).run).toBeNull();
    expect(store.get(videoToolProblemAtom)?.key).toBe('CoinsNotEnough');
    expect(store.get(rechargeOpenAtom)).toBe(true);
  });

  it('a second press while one runs is ignored', async () => {
    const store = createAppStore();
    let finish: (v: unknown) => void = () => {};
    const { api, post } = apiAnswering(() => new Promise((r) => (finish = r)));
    const first = press(store, api).run;
    expect(await press(store, api).run).toBeNull();
    finish({ id: 'one' });
    expect(await first).toBe('one');
    expect(post).toHaveBeenCalledTimes(1);
  });
});
