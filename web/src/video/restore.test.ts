// "Reuse" of a video task from its create payload (get-meta-info): the
// payload → form mapping of every tab, and reuseVideoTask over a mocked
// fetch, falling back to the task view when the call fails.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../api/client';
import type { PaymentInfo } from '../api/types';
import type { StoredVideoPayload, VideoMetaInfo } from '../api/video';
import type { ImageInput } from '../generator/config';
import { createAppStore } from '../state/jotai';
import { makeTask } from '../tasks/testTask';
import { videoConfigsAtom, videoParamsAtom, videoPartAtom, videoProblemAtom, videoTabAtom } from './atoms';
import { buildVideoRequest, defaultVideoConfig, withModel, withTemplate } from './model';
import type { VideoCaller, VideoConfig, VideoTab } from './model';
import { metaInfoTab, parseCameraMode, payloadConfig, payloadImageUrls } from './restore';
import { reuseVideoTask } from './reuse';
import { TEST_VIDEO_PARAMS as params } from './testParams';

const payment = (over: Partial<PaymentInfo> = {}): PaymentInfo => ({ activeState: false, liteActiveState: false, infiniteQueue: false, productLevel: 0, ...over });
const free: VideoCaller = { role: 'free', payment: payment() };
const paid: VideoCaller = { role: 'paid', payment: payment({ activeState: true, infiniteQueue: true, productLevel: 2 }) };
const img = (name: string, width = 640, height = 360): ImageInput => ({ url: `http://h/files/u/a/${name}.png`, width, height, name: `${name}.png` });
const pics = (...images: ImageInput[]) => new Map(images.map((i) => [i.url, i]));

/** The payload as get-meta-info gives it back: the body re-serialized, every unset option null. */
function stored(body: object): StoredVideoPayload {
  const b = JSON.parse(JSON.stringify(body)) as { meta: { generate_video: object } } & Record<string, unknown>;
  return {
    parent_task_id: null,
    ss: null,
    task_domain_type: null,
    template_id: null,
    ...b,
    meta: {
      negative_prompt: null,
      seed: null,
      n_video_iter: null,
      sampler: null,
      lora_models: [],
      ...b.meta,
      generate_video: { audio_effect: null, motion_mode: null, quality_mode: null, relevance: null, style: null, ...b.meta.generate_video },
    },
  } as StoredVideoPayload;
}

describe('payload → form', () => {
  it('text to video: model, size, duration, camera, count, seed, prompts', () => {
    const payload = stored({
      model_no: 'easelFlow',
      model_ver_no: 'easelFlow',
      meta: {
        prompt: 'tide pools',
        negative_prompt: 'blur',
        width: 832,
        height: 1088,
        aspect_ratio: '3:4',
        n_iter: 1,
        seed: 42,
        generate_video: { generate_video_duration: 10, camera_control_option: { mode: 'Zoom', offset: 4 }, image_opts: [] },
      },
    });
    const c = payloadConfig('txt2video', payload, new Map(), params, free);
    const start = defaultVideoConfig('txt2video', params, free);
    expect(start.modelNo).toBe('kl_v1.0');
    expect(c).toMatchObject({
      modelNo: 'easelFlow',
      prompt: 'tide pools',
      negative: 'blur',
      enableNegative: true,
      width: 832,
      height: 1088,
      aspectRatio: '3:4',
      duration: 10,
      durationChosen: true,
      nIter: 1,
      cameraMode: 'Zoom',
      cameraOffset: 4,
      seed: '42',
      quality: null,
      firstFrame: null,
      lastFrame: null,
    });
  });

  it('image to video: first and last frames by mode, a wire camera name, a quality mode', () => {
    const first = img('first');
    const last = img('last');
    const payload = stored({
      model_no: 'easelFlow',
      meta: {
        prompt: 'dawn',
        width: 1280,
        height: 720,
        aspect_ratio: '16:9',
        n_iter: 1,
        generate_video: {
          generate_video_duration: 5,
          camera_control_option: { mode: 'camera_movement', offset: -3 },
          image_opts: [
            { mode: 'last_frame', url: last.url },
            { mode: 'first_frame', url: first.url },
          ],
        },
      },
    });
    const c = payloadConfig('img2video', payload, pics(first, last), params, free);
    expect(c).toMatchObject({ modelNo: 'easelFlow', firstFrame: first, lastFrame: last, cameraMode: 'Camera Movement', cameraOffset: -3, duration: 5, seed: '' });

    const pix = stored({
      model_no: 'pixVerse',
      meta: { prompt: 'p', width: 1088, height: 832, aspect_ratio: '4:3', n_iter: 2, generate_video: { generate_video_duration: 8, quality_mode: '720p', image_opts: [{ mode: 'image', url: first.url }] } },
    });
    const p = payloadConfig('img2video', pix, pics(first), params, paid);
    expect(p).toMatchObject({ modelNo: 'pixVerse', quality: '720p', duration: 8, nIter: 2, width: 1088, height: 832, aspectRatio: '4:3', firstFrame: first, lastFrame: null, cameraMode: null });
  });

  it('a picture not read restores 0×0 under its file name', () => {
    const payload = stored({ model_no: 'easelFlow', meta: { prompt: '', generate_video: { image_opts: [{ mode: 'image', url: 'http://h/files/u/a/my%20pic.png' }] } } });
    const c = payloadConfig('img2video', payload, new Map(), params, free);
    expect(c.firstFrame).toEqual({ url: 'http://h/files/u/a/my%20pic.png', name: 'my pic.png', width: 0, height: 0 });
  });

  it('image to Live2D: the live2d picture and the Live2D model', () => {
    const face = img('face');
    const payload = stored({ model_no: 'miniMax', meta: { prompt: 'wave', width: 1280, height: 720, aspect_ratio: '16:9', n_iter: 3, generate_video: { generate_video_duration: 6, image_opts: [{ mode: 'live2d', url: face.url }] } } });
    expect(payloadConfig('img2Live2d', payload, pics(face), params, free)).toMatchObject({ modelNo: 'miniMax', firstFrame: face, nIter: 3, duration: 6 });
  });

  it('multi-image: the slots in order, the model, the negative-prompt switch as sent', () => {
    const a = img('a');
    const b = img('b');
    const payload = stored({
      model_no: 'easelFlow2',
      ss: '52',
      task_domain_type: 25,
      meta: {
        prompt: 'collage',
        negative_prompt: 'text',
        enableNegativePrompts: false,
        width: 960,
        height: 960,
        aspect_ratio: '1:1',
        n_iter: 1,
        generate_video: { generate_video_duration: 10, image_opts: [{ mode: 'image', url: a.url }, { mode: 'image', url: b.url }] },
      },
    });
    const c = payloadConfig('multiImg2video', payload, pics(a, b), params, free);
    expect(c).toMatchObject({ modelNo: 'easelFlow2', images: [a, b, null, null], negative: 'text', enableNegative: false, width: 960, height: 960, aspectRatio: '1:1', duration: 10 });
  });

  it('effect: the template, its slots and its duration', () => {
    const a = img('a');
    const b = img('b');
    const payload = stored({
      model_no: '',
      template_id: 'ken_burns_duo',
      meta: { prompt: 'pan', width: 1280, height: 720, aspect_ratio: '16:9', n_iter: 1, generate_video: { generate_video_duration: 5, image_opts: [{ mode: 'image', url: a.url }, { mode: 'image', url: b.url }] } },
    });
    const c = payloadConfig('effect', payload, pics(a, b), params, free);
    expect(c).toMatchObject({ modelNo: '', templateId: 'ken_burns_duo', images: [a, b], duration: 5, prompt: 'pan' });
    // An unknown template: the tab's first, its slots cut to its inputs.
    const gone = payloadConfig('effect', { ...payload, template_id: 'gone' }, pics(a, b), params, free);
    expect(gone).toMatchObject({ templateId: 'zoom_burst', images: [a] });
  });

  it('fits what the model no longer allows: another tab\'s model, a duration off its list, a member quality kept for the check', () => {
    // Dance (Stream) makes no text-to-video: the tab's first model, the size kept where it offers it.
    const payload = stored({ model_no: 'easelStream', meta: { prompt: 'x', width: 960, height: 960, aspect_ratio: '1:1', n_iter: 9, generate_video: { generate_video_duration: 7 } } });
    expect(payloadConfig('txt2video', payload, new Map(), params, free)).toMatchObject({ modelNo: 'kl_v1.0', width: 960, height: 960, duration: 5, nIter: 2 });
    // A camera move on a model without camera control is dropped; an offset out of range is clamped.
    const cam = stored({ model_no: 'pixVerse', meta: { prompt: 'x', generate_video: { camera_control_option: { mode: 'Pan', offset: 3 } } } });
    expect(payloadConfig('txt2video', cam, new Map(), params, free)).toMatchObject({ modelNo: 'pixVerse', cameraMode: null, cameraOffset: 0, quality: '360p' });
    const wide = stored({ model_no: 'easelFlow', meta: { prompt: 'x', generate_video: { camera_control_option: { mode: 'pan', offset: 40 } } } });
    expect(payloadConfig('txt2video', wide, new Map(), params, free)).toMatchObject({ cameraMode: 'Pan', cameraOffset: 10 });
  });

  it('an empty payload gives the tab\'s defaults', () => {
    for (const tab of ['txt2video', 'img2video', 'img2Live2d', 'multiImg2video', 'effect'] as const) {
      expect(payloadConfig(tab, {}, new Map(), params, free)).toEqual(defaultVideoConfig(tab, params, free));
    }
  });

  it('a form posted and given back restores to itself, on every tab', () => {
    const a = img('a');
    const b = img('b');
    const forms: [VideoTab, VideoConfig, VideoCaller][] = [];
    const set = (tab: VideoTab, no: string | null, change: Partial<VideoConfig>, caller = free) => {
      let c = defaultVideoConfig(tab, params, caller);
      c = { ...c, ...change };
      const m = params.items.find((x) => x.model_no === no);
      forms.push([tab, m ? withModel({ ...c, durationChosen: true }, m, caller) : c, caller]);
    };
    set('txt2video', 'easelFilmVideo', { prompt: 'film', negative: 'noise', enableNegative: true, seed: '7', duration: 10, width: 960, height: 960, aspectRatio: '1:1', cameraMode: 'Vertical', cameraOffset: -6 });
    set('img2video', 'easelUltraPro', { prompt: 'u', firstFrame: a, lastFrame: b, cameraMode: 'Horizontal', cameraOffset: 2, width: 720, height: 1280, aspectRatio: '9:16' });
    set('img2video', 'pixVerse', { prompt: 'q', firstFrame: a, quality: '1080p', duration: 8, nIter: 2 }, paid);
    set('img2Live2d', 'miniMax', { prompt: 'l', firstFrame: a, nIter: 3 });
    set('multiImg2video', 'kl_v1.6', { prompt: 'm', negative: 'n', enableNegative: true, images: [a, null, b, null], duration: 10 });
    const effect = params.effects.find((t) => t.id === 'ken_burns_trio');
    if (!effect) throw new Error('ken_burns_trio');
    forms.push(['effect', withTemplate({ ...defaultVideoConfig('effect', params, free), prompt: 'e', images: [a, b, a] }, effect), free]);

    for (const [tab, form, caller] of forms) {
      const payload = stored(buildVideoRequest(tab, form, params, caller));
      const back = payloadConfig(tab, payload, pics(a, b), params, caller);
      // Multi-image slots are sent without their gaps: the pictures come back first.
      const expected = tab === 'multiImg2video' ? { ...form, images: [a, b, null, null] } : form;
      expect(back, tab).toEqual({ ...expected, durationChosen: tab !== 'effect' });
    }
  });
});

describe('the tab of a get-meta-info answer', () => {
  it('takes the server\'s tab, restore_tab for an unknown name, none for a tool', () => {
    const info = (tab: string | null, domain: number, payload: StoredVideoPayload = {}) => ({ tab, task_domain_type: domain, payload });
    expect(metaInfoTab(params, info('img2Live2d', 12))).toBe('img2Live2d');
    expect(metaInfoTab(params, info(null, 16))).toBeNull();
    expect(metaInfoTab(params, info('somethingNew', 12, { model_no: 'miniMax', meta: { generate_video: { image_opts: [{ mode: 'live2d', url: 'u' }] } } }))).toBe('img2Live2d');
    expect(metaInfoTab(params, info('somethingNew', 25))).toBe('multiImg2video');
  });

  it('reads camera modes by label or wire name, and the pictures in order', () => {
    expect(['Camera Movement', 'camera_movement', 'ZOOM', 'pan', 'camera-movement', 'roll', '', null, undefined].map(parseCameraMode)).toEqual([
      'Camera Movement',
      'Camera Movement',
      'Zoom',
      'Pan',
      'Camera Movement',
      null,
      null,
      null,
      null,
    ]);
    expect(payloadImageUrls({ meta: { generate_video: { image_opts: [{ mode: 'image', url: 'b' }, { mode: 'image', url: '' }, { mode: 'image', url: null }, { mode: 'last_frame', url: 'a' }] } } })).toEqual(['b', 'a']);
  });
});

describe('reuseVideoTask over the API', () => {
  const flowTask = makeTask({ id: 'v1', status: 3, type: 43, prompt: 'from the view', width: 1280, height: 720, seed: 5, preprocess_images: ['http://h/files/u/a/first.png'], video_uris: ['/files/t/v1/1-0.mp4'] });
  const metaInfo: VideoMetaInfo = {
    task_id: 'v1',
    task_flow_version: 'v2',
    action: 'imageToVideo',
    task_domain_type: 12,
    tab: 'img2video',
    video_uris: ['/files/t/v1/1-0.mp4'],
    payload: stored({
      model_no: 'easelFlow',
      model_ver_no: 'easelFlow',
      meta: {
        prompt: 'a slow dawn',
        width: 1280,
        height: 720,
        aspect_ratio: '16:9',
        n_iter: 1,
        seed: 99,
        generate: { gen_mode: 0 },
        generate_video: { generate_video_duration: 10, camera_control_option: { mode: 'Zoom', offset: 4 }, image_opts: [{ mode: 'image', url: 'http://h/files/u/a/first.png' }] },
        task_from: 'web',
      },
    }),
  };

  function server(answer: (path: string, body: unknown) => { status: { code: number; key: string | null; msg: string }; data?: unknown }) {
    const calls: { path: string; body: unknown }[] = [];
    const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = String(input);
      const body: unknown = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
      calls.push({ path, body });
      return new Response(JSON.stringify(answer(path, body)), { status: 200, headers: { 'Content-Type': 'application/json' } });
    });
    return { api: new ApiClient({ fetch: fetchMock as unknown as typeof fetch, getToken: () => 'tok' }), calls };
  }

  let store: ReturnType<typeof createAppStore>;
  beforeEach(() => {
    store = createAppStore();
    store.set(videoParamsAtom, { state: 'ready', params });
    store.set(videoProblemAtom, { key: 'PromptNotEmpty', text: '' });
    store.set(videoPartAtom, 'tools');
  });

  it('restores everything the payload carries into its tab', async () => {
    const srv = server(() => ({ status: { code: 10000, key: null, msg: 'success' }, data: metaInfo }));
    expect(await reuseVideoTask(store, srv.api, flowTask)).toBe('img2video');
    expect(srv.calls).toEqual([{ path: '/api/v1/task/v2/video/get-meta-info', body: { task_id: 'v1', task_flow_version: 'v2' } }]);
    expect(store.get(videoTabAtom)).toBe('img2video');
    expect(store.get(videoPartAtom)).toBe('generate');
    expect(store.get(videoProblemAtom)).toBeNull();
    expect(store.get(videoConfigsAtom).img2video).toMatchObject({
      modelNo: 'easelFlow',
      prompt: 'a slow dawn',
      duration: 10,
      cameraMode: 'Zoom',
      cameraOffset: 4,
      seed: '99',
      firstFrame: { url: 'http://h/files/u/a/first.png', name: 'first.png' },
    });
  });

  it('falls back to the task view when the call fails', async () => {
    const srv = server(() => ({ status: { code: 20004, key: 'NotFound', msg: 'not found' } }));
    expect(await reuseVideoTask(store, srv.api, flowTask)).toBe('img2video');
    expect(srv.calls.map((c) => c.path)).toEqual(['/api/v1/task/v2/video/get-meta-info']);
    const c = store.get(videoConfigsAtom).img2video;
    // The view carries no model, duration or camera: the tab's first model and its defaults.
    expect(c).toMatchObject({ modelNo: 'kl_v1.0', prompt: 'from the view', seed: '5', cameraMode: null, duration: 10, firstFrame: { url: 'http://h/files/u/a/first.png' } });
  });

  it('a task no tab makes (a tool) restores nothing', async () => {
    const srv = server(() => ({ status: { code: 10000, key: null, msg: 'success' }, data: { ...metaInfo, tab: null, action: 'upscale', task_domain_type: 16 } }));
    expect(await reuseVideoTask(store, srv.api, makeTask({ id: 'v2', status: 3, type: 47 }))).toBeNull();
    expect(store.get(videoConfigsAtom)).toEqual({});
    expect(store.get(videoPartAtom)).toBe('tools');
  });
});
