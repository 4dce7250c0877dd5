import { describe, expect, it, vi } from 'vitest';
import { loginDialogAtom } from '../account/atoms';
import { ApiError } from '../api/client';
import type { ApiClient } from '../api/client';
import type { PaymentInfo } from '../api/types';
import { uploadsAtom } from '../generator/atoms';
import type { ImageInput } from '../generator/config';
import { rechargeOpenAtom, vipPopupAtom } from '../mall/atoms';
import { createAppStore } from '../state/jotai';
import { videoGeneratingAtom, videoProblemAtom } from './atoms';
import { generateVideo } from './generate';
import {
  aspectMatches,
  buildVideoRequest,
  checkVideo,
  defaultVideoConfig,
  fixedDuration,
  genModeFor,
  modelOf,
  modelsForTab,
  parseSeed,
  qualityLocked,
  resolveSize,
  showDiscount,
  snapDuration,
  subTabOf,
  templateOf,
  VIDEO_TABS,
  videoCallPath,
  withModel,
  withTemplate,
} from './model';
import type { VideoCaller, VideoConfig, VideoTab } from './model';
import { TEST_VIDEO_PARAMS as params } from './testParams';

const payment = (over: Partial<PaymentInfo> = {}): PaymentInfo => ({ activeState: false, liteActiveState: false, infiniteQueue: false, productLevel: 0, ...over });
const free: VideoCaller = { role: 'free', payment: payment() };
const paid: VideoCaller = { role: 'paid', payment: payment({ activeState: true, infiniteQueue: true, productLevel: 2 }) };
const img = (name: string): ImageInput => ({ url: `http://127.0.0.1:8080/files/u/a/${name}.png`, width: 256, height: 320, name: `${name}.png` });
const model = (no: string) => {
  const m = modelOf(params, no);
  if (!m) throw new Error(no);
  return m;
};
const configFor = (tab: VideoTab, no: string | null, caller = free): VideoConfig => {
  const c = defaultVideoConfig(tab, params, caller);
  return no === null ? c : withModel(c, model(no), caller);
};

describe('tabs and models', () => {
  it('has the five tabs of spec 2 §2 and their sub-tabs', () => {
    expect(VIDEO_TABS).toEqual(['img2video', 'txt2video', 'img2Live2d', 'multiImg2video', 'effect']);
    expect(VIDEO_TABS.map(subTabOf)).toEqual(['videoModel', 'videoModel', 'videoModel', 'multiImage', 'effect']);
  });

  it('offers each tab the models that can do it', () => {
    const ids = (tab: VideoTab) => modelsForTab(params, tab).map((m) => m.model_no);
    expect(ids('txt2video')).not.toContain('easelStream');
    expect(ids('img2video')).toContain('easelStream');
    expect(ids('img2Live2d')).toEqual(['miniMax']);
    expect(ids('multiImg2video')).toEqual(['kl_v1.6', 'easelFlow2']);
    expect(ids('effect')).toEqual([]);
  });

  it('posts each tab to its call', () => {
    expect(VIDEO_TABS.map(videoCallPath)).toEqual([
      '/api/v1/task/v2/video/img-to-video',
      '/api/v1/task/v2/video/text-to-video',
      '/api/v1/task/v2/video/img-to-video',
      '/api/v1/task/v2/video/multi-img-to-video',
      '/api/v1/task/v2/video/img-to-video',
    ]);
  });
});

describe('rules applied client-side (spec 2 §4, §5, §6)', () => {
  it('snaps a duration to the nearest allowed, ties to the shorter', () => {
    expect(snapDuration([5, 10], 7)).toBe(5);
    expect(snapDuration([5, 10], 8)).toBe(10);
    expect(snapDuration([5, 10], 7.5)).toBe(5);
    expect(snapDuration([], 7)).toBe(7);
  });

  it('fixes the duration at 5 for kl_v1.0 with a last frame or two images, kl_v2.0 and Dance', () => {
    expect(fixedDuration(model('kl_v1.0'), false, 1)).toBeNull();
    expect(fixedDuration(model('kl_v1.0'), true, 2)).toBe(5);
    expect(fixedDuration(model('kl_v1.0'), false, 2)).toBe(5);
    expect(fixedDuration(model('kl_v2.0'), false, 0)).toBe(5);
    expect(fixedDuration(model('easelStream'), false, 1)).toBe(5);
    expect(fixedDuration(model('easelFlow'), true, 2)).toBeNull();
  });

  it('falls back to an option of the same ratio, else the default size', () => {
    const kling = model('kl_v1.6');
    expect(resolveSize(kling, 960, 960, '1:1')).toEqual({ aspect_ratio: '1:1', width: 960, height: 960 });
    expect(resolveSize(kling, 1088, 832, '4:3')).toEqual(kling.resolution_param.dft_resolution);
    expect(resolveSize(model('hunyuan_1.0'), 720, 1280, '9:16')).toEqual({ aspect_ratio: '9:16', width: 480, height: 848 });
    expect(aspectMatches(1280, 720, '16:9')).toBe(true);
    expect(aspectMatches(1280, 720, '4:3')).toBe(false);
  });

  it('reshapes the form for a new model: size, duration, count, quality, camera, last frame', () => {
    const flow = { ...configFor('img2video', 'easelFlow'), nIter: 1, duration: 10, durationChosen: true, cameraMode: 'Zoom' as const, cameraOffset: 4, lastFrame: img('last') };
    const hunyuan = withModel({ ...flow, nIter: 2 }, model('hunyuan_1.0'), free);
    expect(hunyuan).toMatchObject({ modelNo: 'hunyuan_1.0', width: 848, height: 480, duration: 5, nIter: 2, cameraMode: null, cameraOffset: 0, lastFrame: null });
    const sparkle = withModel({ ...flow, nIter: 9 }, model('miniMax'), free);
    expect(sparkle.nIter).toBe(3);
    expect(sparkle.duration).toBe(6);
    const wan = withModel({ ...flow, nIter: 2 }, model('wan_video'), free);
    expect(wan.nIter).toBe(1);
    expect(wan.lastFrame).toEqual(img('last'));
    const magic = withModel(flow, model('pixVerse'), free);
    expect(magic.quality).toBe('360p');
    expect(withModel({ ...magic, quality: '720p' }, model('pixVerse'), paid).quality).toBe('720p');
    expect(withModel(magic, model('easelFlow'), free).quality).toBeNull();
    // A chosen duration is kept, snapped; an unchosen one follows the model's default.
    expect(withModel({ ...flow, duration: 10 }, model('pixVerse'), free).duration).toBe(8);
    expect(withModel({ ...flow, duration: 10, durationChosen: false }, model('pixVerse'), free).duration).toBe(5);
    expect(withModel({ ...flow, durationChosen: false }, model('kl_v1.5'), free).duration).toBe(10);
  });

  it('starts with the model default duration, the longest for members of level 3', () => {
    expect(configFor('txt2video', null).modelNo).toBe('kl_v1.0');
    expect(configFor('txt2video', null).duration).toBe(10);
    const flowFree = defaultVideoConfig('txt2video', { ...params, items: [model('easelFlow')] }, free);
    expect(flowFree.duration).toBe(5);
    const vip: VideoCaller = { role: 'paid', payment: payment({ activeState: true, productLevel: 3 }) };
    expect(defaultVideoConfig('txt2video', { ...params, items: [model('easelFlow')] }, vip).duration).toBe(10);
  });

  it('starts multi-image at kl_v1.6, 9:16 720x1280, 5 s, 4 slots', () => {
    const c = configFor('multiImg2video', null);
    expect(c).toMatchObject({ modelNo: 'kl_v1.6', width: 720, height: 1280, aspectRatio: '9:16', duration: 5 });
    expect(c.images).toEqual([null, null, null, null]);
  });

  it('cuts the effect slots to the template inputs', () => {
    const trio = templateOf(params, 'ken_burns_trio');
    const duo = templateOf(params, 'ken_burns_duo');
    if (!trio || !duo) throw new Error('templates');
    const c = withTemplate(withTemplate(configFor('effect', null), trio), duo);
    expect(c.images).toHaveLength(2);
    expect(withTemplate({ ...c, images: [img('a'), img('b')] }, templateOf(params, 'shimmer') ?? trio).images).toEqual([img('a')]);
  });

  it('marks quality modes above 360p member-only for non-members', () => {
    expect(qualityLocked('360p', 'free')).toBe(false);
    expect(qualityLocked('540p', 'free')).toBe(true);
    expect(qualityLocked('1080p', 'paid')).toBe(false);
  });

  it('sets gen_mode from the level, the kling rules and the unlimited queue', () => {
    const q = payment({ infiniteQueue: true, productLevel: 2 });
    expect(genModeFor(model('easelFlow'), 'img2video', false, q)).toBe(1);
    expect(genModeFor(model('easelFlow'), 'img2video', false, payment({ infiniteQueue: false, productLevel: 3 }))).toBe(0);
    expect(genModeFor(model('kl_v1.6'), 'txt2video', false, q)).toBe(0);
    expect(genModeFor(model('kl_v1.5'), 'img2video', true, payment({ infiniteQueue: true, productLevel: 0 }))).toBe(1);
    expect(genModeFor(model('kl_v1.5'), 'img2video', true, payment())).toBe(0);
  });

  it('checks in the page order of spec 2 §5', () => {
    expect(checkVideo('txt2video', configFor('txt2video', null), params, { role: 'visitor', payment: null })).toBe('NeedLogin');
    expect(checkVideo('txt2video', configFor('txt2video', null), params, free)).toBe('PromptNotEmpty');
    expect(checkVideo('txt2video', { ...configFor('txt2video', null), modelNo: 'easelStream', prompt: 'x' }, params, free)).toBe('PleaseSelectBaseName');
    expect(checkVideo('img2video', { ...configFor('img2video', 'easelFlow'), prompt: 'x' }, params, free)).toBe('pleaseSelectImage');
    expect(checkVideo('img2video', { ...configFor('img2video', 'easelFlow'), firstFrame: img('a') }, params, free)).toBeNull();
    const multi = configFor('multiImg2video', null);
    expect(checkVideo('multiImg2video', multi, params, free)).toBe('pleaseSelectImage');
    expect(checkVideo('multiImg2video', multi, params, free, true)).toBeNull();
    expect(checkVideo('effect', { ...configFor('effect', null), templateId: null }, params, free)).toBe('pleaseSelectEffect');
    expect(checkVideo('effect', configFor('effect', null), params, free)).toBe('pleaseSelectImage');
    const magic = { ...configFor('txt2video', 'pixVerse'), prompt: 'x', quality: '720p' };
    expect(checkVideo('txt2video', magic, params, free)).toBe('videoQualityMemberOnly');
    expect(checkVideo('txt2video', magic, params, paid)).toBeNull();
  });

  it('shows the discount only for a video model with a rate and has_discount', () => {
    const e = { calculate_coins: 8, discount_off_rate: 20, calculate_coins_before_discount: 10, has_discount: true, estimate_time: 30 };
    expect(showDiscount('img2video', e)).toBe(true);
    expect(showDiscount('effect', e)).toBe(false);
    expect(showDiscount('img2video', { ...e, has_discount: false })).toBe(false);
    expect(showDiscount('img2video', { ...e, discount_off_rate: 0 })).toBe(false);
    expect(showDiscount('img2video', null)).toBe(false);
  });

  it('reads the seed field', () => {
    expect(parseSeed('')).toBeUndefined();
    expect(parseSeed(' 42 ')).toBe(42);
    expect(parseSeed('4x')).toBeUndefined();
  });
});

describe('payloads (spec 2 §7)', () => {
  it('img2video: first frame, camera, size, duration, n_iter, task_from', () => {
    const c: VideoConfig = { ...configFor('img2video', 'easelFlow'), prompt: 'a fox', firstFrame: img('a'), cameraMode: 'Zoom', cameraOffset: 12, seed: '7' };
    expect(buildVideoRequest('img2video', c, params, free)).toEqual({
      model_no: 'easelFlow',
      model_ver_no: 'easelFlow',
      meta: {
        prompt: 'a fox',
        width: 1280,
        height: 720,
        aspect_ratio: '16:9',
        n_iter: 1,
        seed: 7,
        generate: { gen_mode: 0 },
        generate_video: {
          generate_video_duration: 5,
          camera_control_option: { mode: 'Zoom', offset: 10 },
          image_opts: [{ mode: 'image', url: img('a').url }],
        },
        task_from: 'web',
      },
    });
  });

  it('img2video with a last frame sends first_frame and last_frame; the negative prompt only when on', () => {
    const c: VideoConfig = { ...configFor('img2video', 'kl_v1.0'), firstFrame: img('a'), lastFrame: img('b'), negative: 'blur' };
    const off = buildVideoRequest('img2video', c, params, paid);
    expect(off.meta.generate_video.image_opts).toEqual([
      { mode: 'first_frame', url: img('a').url },
      { mode: 'last_frame', url: img('b').url },
    ]);
    expect(off.meta.generate_video.generate_video_duration).toBe(5);
    expect(off.meta).not.toHaveProperty('negative_prompt');
    expect(off.meta.generate).toEqual({ gen_mode: 1 });
    const on = buildVideoRequest('img2video', { ...c, enableNegative: true }, params, paid);
    expect(on.meta.negative_prompt).toBe('blur');
    expect(on.meta).not.toHaveProperty('enableNegativePrompts');
  });

  it('a model with frame_ctl 1 sends no last frame', () => {
    const c: VideoConfig = { ...configFor('img2video', 'kl_v2.0'), firstFrame: img('a'), lastFrame: img('b') };
    expect(buildVideoRequest('img2video', c, params, free).meta.generate_video.image_opts).toEqual([{ mode: 'image', url: img('a').url }]);
  });

  it('txt2video: no image, no camera for a model without it, quality for PixVerse', () => {
    const c: VideoConfig = { ...configFor('txt2video', 'pixVerse'), prompt: 'rain', firstFrame: img('a'), cameraMode: 'Pan' };
    const b = buildVideoRequest('txt2video', c, params, free);
    expect(b.meta.generate_video).toEqual({ generate_video_duration: 5, image_opts: [], quality_mode: '360p' });
    expect(b).not.toHaveProperty('template_id');
    expect(b).not.toHaveProperty('ss');
  });

  it('img2Live2d: the picture as a live2d image option', () => {
    const c: VideoConfig = { ...configFor('img2Live2d', null), firstFrame: img('face') };
    const b = buildVideoRequest('img2Live2d', c, params, free);
    expect(b.model_no).toBe('miniMax');
    expect(b.meta.generate_video.image_opts).toEqual([{ mode: 'live2d', url: img('face').url }]);
  });

  it('multiImg2video: task_domain_type 25, ss "52", filled slots, enableNegativePrompts', () => {
    const c: VideoConfig = { ...configFor('multiImg2video', null), images: [img('a'), null, img('c'), null], negative: 'dark', enableNegative: true };
    const b = buildVideoRequest('multiImg2video', c, params, free);
    expect(b.task_domain_type).toBe(25);
    expect(b.ss).toBe('52');
    expect(b.model_no).toBe('kl_v1.6');
    expect(b.meta).toMatchObject({ width: 720, height: 1280, aspect_ratio: '9:16', negative_prompt: 'dark', enableNegativePrompts: true });
    expect(b.meta.generate_video.image_opts).toEqual([
      { mode: 'image', url: img('a').url },
      { mode: 'image', url: img('c').url },
    ]);
  });

  it('effect: template_id, empty model numbers, one option per template input', () => {
    const duo = templateOf(params, 'ken_burns_duo');
    if (!duo) throw new Error('duo');
    const c: VideoConfig = { ...withTemplate(configFor('effect', null), duo), images: [img('a'), img('b')] };
    const b = buildVideoRequest('effect', c, params, free);
    expect(b.template_id).toBe('ken_burns_duo');
    expect(b.model_no).toBe('');
    expect(b.model_ver_no).toBe('');
    expect(b.meta.generate_video.image_opts).toEqual([
      { mode: 'image', url: img('a').url },
      { mode: 'image', url: img('b').url },
    ]);
  });
});

describe('generate', () => {
  const deps = (post: ApiClient['post'], config: VideoConfig, tab: VideoTab = 'img2video', caller = free) => {
    const store = createAppStore();
    const onCreated = vi.fn();
    return { store, onCreated, d: { store, api: { post }, params, caller, tab, config, onCreated } };
  };
  const ready = () => ({ ...configFor('img2video', 'easelFlow'), firstFrame: img('a') });

  it('posts the payload and hands the id on', async () => {
    const post = vi.fn().mockResolvedValue({ id: 't1' });
    const { onCreated, d } = deps(post as unknown as ApiClient['post'], ready());
    expect(await generateVideo(d)).toBe('t1');
    expect(post).toHaveBeenCalledWith('/api/v1/task/v2/video/img-to-video', buildVideoRequest('img2video', ready(), params, free), undefined);
    expect(onCreated).toHaveBeenCalledWith('t1');
  });

  it('shows a failed check without calling, and opens the VIP pop-up for a member-only quality', async () => {
    const post = vi.fn();
    const { store, d } = deps(post as unknown as ApiClient['post'], { ...configFor('txt2video', 'pixVerse'), prompt: 'x', quality: '1080p' }, 'txt2video');
    expect(await generateVideo(d)).toBeNull();
    expect(post).not.toHaveBeenCalled();
    expect(store.get(videoProblemAtom)?.key).toBe('videoQualityMemberOnly');
    expect(store.get(vipPopupAtom)).toEqual({ open: true, reason: 'member-only' });
  });

  it('waits for uploads', async () => {
    const post = vi.fn();
    const { store, d } = deps(post as unknown as ApiClient['post'], ready());
    store.set(uploadsAtom, { 'video:img2video:first': { fraction: 0.5, failed: false } });
    expect(await generateVideo(d)).toBeNull();
    expect(store.get(videoProblemAtom)?.key).toBe('uploadingWaitTip');
  });

  it('maps server keys: CoinsNotEnough opens recharge, TaskQueueFull the VIP pop-up, NeedLogin the login', async () => {
    for (const [code, key, atomCheck] of [
      [40301, 'CoinsNotEnough', (s: ReturnType<typeof createAppStore>) => s.get(rechargeOpenAtom)],
      [40000, 'TaskQueueFull', (s: ReturnType<typeof createAppStore>) => s.get(vipPopupAtom).open],
      [20000, 'NeedLogin', (s: ReturnType<typeof createAppStore>) => s.get(loginDialogAtom).open],
    ] as const) {
      const post = vi.fn().mockRejectedValue(new ApiError({ code, msg: 'msg', key }, 200));
      const { store, d } = deps(post as unknown as ApiClient['post'], ready());
      expect(await generateVideo(d)).toBeNull();
      expect(store.get(videoProblemAtom)?.key).toBe(key);
      expect(atomCheck(store)).toBe(true);
      expect(store.get(videoGeneratingAtom)).toBe(false);
    }
  });

  it('ignores a second press while generating', async () => {
    const post = vi.fn();
    const { store, d } = deps(post as unknown as ApiClient['post'], ready());
    store.set(videoGeneratingAtom, true);
    expect(await generateVideo(d)).toBeNull();
    expect(post).not.toHaveBeenCalled();
  });
});
