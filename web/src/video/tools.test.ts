// The video tools' bodies and checks, and "reuse" of a video task (the
// restore rule mirrored from protocol/src/video/codes.rs).
import { describe, expect, it } from 'vitest';
import type { PaymentInfo } from '../api/types';
import type { ImageInput } from '../generator/config';
import { makeTask } from '../tasks/testTask';
import type { VideoCaller } from './model';
import { domainOfAction, restoreTab, restoredConfig, taskRestoreTab } from './restore';
import { TEST_VIDEO_PARAMS as params } from './testParams';
import { checkTool, myVideos, snapExtend, taskSource, toolEstimateBody, toolRequest, upscaleSize } from './tools';
import type { VideoSource } from './tools';

const upload: VideoSource = { kind: 'upload', url: 'http://h/files/u/f1/out.mp4', width: 320, height: 240, duration: 2, name: 'out.mp4' };
const payment: PaymentInfo = { activeState: false, liteActiveState: false, infiniteQueue: false, productLevel: 0 };
const free: VideoCaller = { role: 'free', payment };
const img = (name: string): ImageInput => ({ url: `http://h/files/u/a/${name}.png`, width: 256, height: 320, name: `${name}.png` });

const videoTask = makeTask({
  id: 't1',
  status: 3,
  type: 43,
  video_uris: ['/files/t/t1/1-0.mp4'],
  img_uris: ['/files/t/t1/1-1.png'],
  outputs: [{ url: '/files/t/t1/1-0.mp4', mime: 'video/mp4', width: 640, height: 360, seed: 7 }],
  width: 640,
  height: 360,
});

describe('tool bodies', () => {
  it('upscale of an upload: twice the size, the video_url and its seconds', () => {
    expect(toolRequest('upscale', upload)).toEqual({
      model_no: '',
      model_ver_no: '',
      meta: { prompt: '', width: 640, height: 480, generate_video: { video_url: upload.url, duration: 2 }, task_from: 'web' },
    });
  });

  it('upscale is capped at 3840 a side, even sides', () => {
    expect(upscaleSize(1920, 1080)).toEqual({ width: 3840, height: 2160 });
    expect(upscaleSize(2560, 1441)).toEqual({ width: 3840, height: 2160 });
    expect(upscaleSize(321, 241)).toEqual({ width: 642, height: 482 });
  });

  it('extend of an earlier task: parent_task_id, seconds snapped to 5 or 10, the prompt', () => {
    const source = taskSource(videoTask, 4.2);
    expect(source).not.toBeNull();
    const body = toolRequest('extend', source!, { extendSeconds: 9, prompt: '  the fox runs on ' });
    expect(body.parent_task_id).toBe('t1');
    expect(body.meta.generate_video).toEqual({ duration: 5, generate_video_duration: 10 });
    expect(body.meta.prompt).toBe('the fox runs on');
    expect(body.meta.width).toBeUndefined();
    expect(snapExtend(7)).toBe(5);
    expect(snapExtend(8)).toBe(10);
  });

  it('frame interpolation sends the source and its seconds only; the estimate adds the action code', () => {
    expect(toolRequest('frameInterpolation', upload).meta.generate_video).toEqual({ video_url: upload.url, duration: 2 });
    expect(toolEstimateBody('frameInterpolation', upload).action).toBe(49);
    expect(toolEstimateBody('upscale', upload).action).toBe(47);
    expect(toolEstimateBody('extend', upload).action).toBe(48);
  });

  it('checks: login, a source, at most 60 s, upscale below 3840', () => {
    expect(checkTool('upscale', upload, false)).toBe('NeedLogin');
    expect(checkTool('upscale', null, true)).toBe('videoSourceMissing');
    expect(checkTool('extend', { ...upload, duration: 61 }, true)).toBe('videoSourceTooLong');
    expect(checkTool('extend', { ...upload, duration: 0 }, true)).toBe('videoSourceTooLong');
    expect(checkTool('upscale', { ...upload, width: 3840 }, true)).toBe('videoUpscaleTooLarge');
    expect(checkTool('frameInterpolation', { ...upload, width: 3840 }, true)).toBeNull();
  });

  it('my videos: finished tasks with a video, newest first', () => {
    const older = { ...videoTask, id: 't0', create_at: 1 };
    const image = makeTask({ id: 'i1', status: 3, img_uris: ['/files/x.png'] });
    const running = makeTask({ id: 'r1', status: 2, video_uris: [] });
    expect(myVideos([older, image, videoTask, running]).map((t) => t.id)).toEqual(['t1', 't0']);
    expect(taskSource(image)).toBeNull();
  });
});

describe('restoring a task (codes.rs restore_tab)', () => {
  it('maps domain types like the server', () => {
    expect(restoreTab(params, 11, null, '', false)).toBe('txt2video');
    expect(restoreTab(params, 12, null, 'kl_v1.6', true)).toBe('img2video');
    expect(restoreTab(params, 12, null, 'miniMax', true)).toBe('img2Live2d');
    expect(restoreTab(params, 15, null, '', true)).toBe('effect');
    expect(restoreTab(params, 25, null, '', true)).toBe('multiImg2video');
    expect(restoreTab(params, null, 42, '', false)).toBe('txt2video');
    expect(restoreTab(params, null, 42, '', true)).toBe('img2video');
    expect(restoreTab(params, 16, 47, '', false)).toBeNull();
    expect(restoreTab(params, null, 1, '', false)).toBeNull();
  });

  it('action codes give the domain types of VideoAction', () => {
    expect([42, 43, 44, 45, 46, 47, 48, 49, 1].map(domainOfAction)).toEqual([11, 12, 25, 15, 12, 16, 16, 16, null]);
  });

  it('a task opens its tab: Live2D tasks the Live2D tab, tools none', () => {
    expect(taskRestoreTab(params, makeTask({ id: 'a', type: 42 }))).toBe('txt2video');
    expect(taskRestoreTab(params, makeTask({ id: 'a', type: 43, preprocess_images: ['u'] }))).toBe('img2video');
    expect(taskRestoreTab(params, makeTask({ id: 'a', type: 46, preprocess_images: ['u'] }))).toBe('img2Live2d');
    expect(taskRestoreTab(params, makeTask({ id: 'a', type: 45 }))).toBe('effect');
    expect(taskRestoreTab(params, makeTask({ id: 'a', type: 44 }))).toBe('multiImg2video');
    expect(taskRestoreTab(params, makeTask({ id: 'a', type: 48 }))).toBeNull();
    expect(taskRestoreTab(params, makeTask({ id: 'a', type: 1 }))).toBeNull();
  });

  it('fills the form: prompt, seed, count, size fitted to the model, pictures in order', () => {
    const task = makeTask({ id: 'a', type: 43, prompt: 'a dawn', seed: 42, n_iter: 1, width: 1280, height: 720 });
    const c = restoredConfig('img2video', task, [img('first'), img('last')], params, free);
    expect(c.prompt).toBe('a dawn');
    expect(c.seed).toBe('42');
    expect(c.firstFrame?.name).toBe('first.png');
    const model = params.items.find((m) => m.model_no === c.modelNo);
    expect(model).toBeDefined();
    // The size is one of the model's options; the last frame only where the model takes one.
    expect(model!.resolution_param.options.some((o) => o.width === c.width && o.height === c.height)).toBe(true);
    expect(c.lastFrame === null).toBe(model!.frame_ctl < 2);

    const live = restoredConfig('img2Live2d', makeTask({ id: 'b', type: 46, prompt: 'wave' }), [img('face')], params, free);
    expect(live.modelNo).toBe('miniMax');
    expect(live.firstFrame?.name).toBe('face.png');

    const multi = restoredConfig('multiImg2video', makeTask({ id: 'c', type: 44 }), [img('a'), img('b')], params, free);
    expect(multi.images.map((i) => i?.name ?? null)).toEqual(['a.png', 'b.png', null, null]);
  });
});
