// "Reuse" of a video task (spec 2 §4 "Restoring a task"): the tab a task
// opens in, mirroring protocol/src/video/codes.rs `restore_tab` (domain type
// 11 txt2video; 12 img2video, or img2Live2d for a Live2D (miniMax) model; 15
// effect; 25 multiImg2video; task type 42 without images txt2video, with
// images img2video), and the form filled either from the create payload
// `get-meta-info` gives back (everything: model, size, duration, quality,
// camera, frames, slots, template, prompts, seed) or, when that call fails,
// from what the task view carries (prompt, size, count, seed, input pictures).
import type { CameraModeLabel, StoredVideoPayload, VideoMetaInfo, VideoParams } from '../api/video';
import type { ImageInput } from '../generator/config';
import type { Task } from '../tasks/types';
import {
  CAMERA_MODES,
  CAMERA_OFFSET_MAX,
  CAMERA_OFFSET_MIN,
  DEFAULT_DURATION,
  MULTI_IMAGE_SLOTS,
  defaultVideoConfig,
  isVideoTab,
  modelOf,
  modelsForTab,
  templateOf,
  withModel,
  withTemplate,
} from './model';
import type { VideoCaller, VideoConfig, VideoTab } from './model';
import { VIDEO_ACTION_CODES } from './tools';

/** protocol/src/video/constants.rs. */
export const DOMAIN_TXT2VIDEO = 11;
export const DOMAIN_IMG2VIDEO = 12;
export const DOMAIN_EFFECT = 15;
export const DOMAIN_VIDEO_TOOL = 16;
export const DOMAIN_MULTI_IMAGE = 25;
export const TASK_TYPE_VIDEO = 42;

/** `VideoAction::task_domain_type` of an action code, else null. */
export function domainOfAction(code: number): number | null {
  switch (code) {
    case VIDEO_ACTION_CODES.textToVideo:
      return DOMAIN_TXT2VIDEO;
    case VIDEO_ACTION_CODES.imageToVideo:
    case VIDEO_ACTION_CODES.live2d:
      return DOMAIN_IMG2VIDEO;
    case VIDEO_ACTION_CODES.effect:
      return DOMAIN_EFFECT;
    case VIDEO_ACTION_CODES.multiImageToVideo:
      return DOMAIN_MULTI_IMAGE;
    case VIDEO_ACTION_CODES.upscale:
    case VIDEO_ACTION_CODES.extend:
    case VIDEO_ACTION_CODES.frameInterpolation:
      return DOMAIN_VIDEO_TOOL;
    default:
      return null;
  }
}

/** `restore_tab` of protocol/src/video/codes.rs. */
export function restoreTab(params: VideoParams, taskDomainType: number | null, taskType: number | null, modelNo: string, hasImages: boolean): VideoTab | null {
  const minimax = modelOf(params, modelNo)?.live2d ?? false;
  switch (taskDomainType) {
    case DOMAIN_TXT2VIDEO:
      return 'txt2video';
    case DOMAIN_IMG2VIDEO:
      return minimax ? 'img2Live2d' : 'img2video';
    case DOMAIN_EFFECT:
      return 'effect';
    case DOMAIN_MULTI_IMAGE:
      return 'multiImg2video';
  }
  if (taskType === TASK_TYPE_VIDEO) return hasImages ? 'img2video' : 'txt2video';
  return null;
}

/**
 * The model a task was made with: the view does not carry it, so the tab's
 * first model, except a Live2D task, which only a Live2D model makes.
 */
export function restoredModelNo(params: VideoParams, task: Pick<Task, 'type'>): string {
  if (task.type === VIDEO_ACTION_CODES.live2d) return params.items.find((m) => m.live2d)?.model_no ?? '';
  return '';
}

/** The tab a task opens in, or null (tools and image tasks). */
export function taskRestoreTab(params: VideoParams, task: Pick<Task, 'type' | 'preprocess_images'>): VideoTab | null {
  return restoreTab(params, domainOfAction(task.type), task.type, restoredModelNo(params, task), task.preprocess_images.length > 0);
}

/**
 * The form of `tab` filled from `task`: its prompt, size (fitted to the
 * model), count, seed and input pictures (`images`: the task's
 * preprocess_images with their sizes, in the order they were sent).
 */
export function restoredConfig(tab: VideoTab, task: Pick<Task, 'type' | 'prompt' | 'width' | 'height' | 'n_iter' | 'seed'>, images: readonly ImageInput[], params: VideoParams, caller: VideoCaller): VideoConfig {
  const base = defaultVideoConfig(tab, params, caller);
  const wanted = restoredModelNo(params, task);
  const model = modelOf(params, wanted) ?? modelOf(params, base.modelNo);
  let c: VideoConfig = {
    ...base,
    prompt: task.prompt,
    nIter: Math.max(1, task.n_iter),
    seed: task.seed > 0 ? String(task.seed) : '',
    width: task.width > 0 ? task.width : base.width,
    height: task.height > 0 ? task.height : base.height,
    aspectRatio: '',
  };
  switch (tab) {
    case 'img2video':
      c = { ...c, firstFrame: images[0] ?? null, lastFrame: images[1] ?? null };
      break;
    case 'img2Live2d':
      c = { ...c, firstFrame: images[0] ?? null };
      break;
    case 'multiImg2video':
    case 'effect':
      c = { ...c, images: base.images.map((_, i) => images[i] ?? null) };
      break;
    case 'txt2video':
      break;
  }
  if (tab !== 'effect' && model && modelsForTab(params, tab).includes(model)) {
    // Sizes, counts and frames fitted to the model; Dance (Stream) back to 5 s (§4).
    c = withModel({ ...c, durationChosen: false }, model, caller);
    if (model.family === 'stream') c = { ...c, duration: DEFAULT_DURATION };
  }
  if (c.aspectRatio === '') c = { ...c, aspectRatio: base.aspectRatio, width: base.width, height: base.height };
  return c;
}

/** A camera mode of a payload, its label (`Zoom`) or wire name (`camera_movement`), any case; else null. */
export function parseCameraMode(mode: string | null | undefined): CameraModeLabel | null {
  const norm = (x: string) => x.trim().toLowerCase().replace(/[ -]/g, '_');
  if (typeof mode !== 'string') return null;
  const t = norm(mode);
  return CAMERA_MODES.find((m) => norm(m) === t) ?? null;
}

/** The picture URLs of a payload's image_opts, in the order sent (empty URLs left out). */
export function payloadImageUrls(payload: StoredVideoPayload): string[] {
  return (payload.meta?.generate_video?.image_opts ?? []).flatMap((o) => (typeof o.url === 'string' && o.url !== '' ? [o.url] : []));
}

/**
 * The tab a `get-meta-info` answer restores into: its `tab`, or (an unknown
 * name) `restore_tab` of its domain type, model and pictures; null for a
 * task no tab makes (the tools).
 */
export function metaInfoTab(params: VideoParams, info: Pick<VideoMetaInfo, 'tab' | 'task_domain_type' | 'payload'>): VideoTab | null {
  if (isVideoTab(info.tab)) return info.tab;
  if (info.tab === null) return null;
  return restoreTab(params, info.task_domain_type, TASK_TYPE_VIDEO, info.payload.model_no ?? '', payloadImageUrls(info.payload).length > 0);
}

const positive = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0;

/**
 * The form of `tab` filled from a task's create `payload`: the model (when
 * the tab offers it, else the tab's first), size and aspect, duration,
 * quality, camera mode and offset, count, seed, prompt, negative prompt
 * (on when one was sent), first/last frame, multi-image slots, the effect
 * template and its slots; then fitted to the model as a model pick would
 * (a value the model does not allow falls back to its own). `pictures`
 * holds the payload's pictures with their sizes, by URL (a missing one is
 * restored 0×0).
 */
export function payloadConfig(tab: VideoTab, payload: StoredVideoPayload, pictures: ReadonlyMap<string, ImageInput>, params: VideoParams, caller: VideoCaller): VideoConfig {
  const base = defaultVideoConfig(tab, params, caller);
  const meta: NonNullable<StoredVideoPayload['meta']> = payload.meta ?? {};
  const video: NonNullable<typeof meta.generate_video> = meta.generate_video ?? {};
  const picture = (url: string): ImageInput => pictures.get(url) ?? { url, name: decodeURIComponent(url.split('/').pop() ?? '') || 'image', width: 0, height: 0 };
  const opts = (video.image_opts ?? []).flatMap((o) => (typeof o.url === 'string' && o.url !== '' ? [{ mode: o.mode ?? 'image', image: picture(o.url) }] : []));
  const negative = meta.negative_prompt ?? '';
  const camera = parseCameraMode(video.camera_control_option?.mode);
  const offset = video.camera_control_option?.offset;
  const seconds = video.generate_video_duration;
  const sent = positive(seconds);
  let c: VideoConfig = {
    ...base,
    prompt: meta.prompt ?? '',
    negative,
    enableNegative: meta.enableNegativePrompts ?? negative.trim() !== '',
    nIter: positive(meta.n_iter) ? Math.floor(meta.n_iter) : base.nIter,
    seed: positive(meta.seed) ? String(Math.floor(meta.seed)) : '',
    width: positive(meta.width) ? meta.width : base.width,
    height: positive(meta.height) ? meta.height : base.height,
    aspectRatio: meta.aspect_ratio || base.aspectRatio,
    duration: sent ? seconds : base.duration,
    durationChosen: true,
    quality: video.quality_mode ?? null,
    cameraMode: camera,
    cameraOffset: camera !== null && typeof offset === 'number' && Number.isFinite(offset) ? Math.max(CAMERA_OFFSET_MIN, Math.min(CAMERA_OFFSET_MAX, Math.round(offset))) : 0,
  };
  switch (tab) {
    case 'img2video': {
      const last = opts.find((o) => o.mode === 'last_frame')?.image ?? null;
      const first = opts.find((o) => o.mode !== 'last_frame')?.image ?? null;
      c = { ...c, firstFrame: first, lastFrame: last };
      break;
    }
    case 'img2Live2d':
      c = { ...c, firstFrame: (opts.find((o) => o.mode === 'live2d') ?? opts[0])?.image ?? null };
      break;
    case 'multiImg2video':
      c = { ...c, images: Array.from({ length: MULTI_IMAGE_SLOTS }, (_, i) => opts[i]?.image ?? null) };
      break;
    case 'effect': {
      const template = templateOf(params, payload.template_id ?? null) ?? templateOf(params, base.templateId);
      const images = opts.map((o) => o.image);
      // The template's slots and its own duration; an unknown template: the tab's first.
      return template ? withTemplate({ ...c, modelNo: '', images, durationChosen: false }, template) : { ...c, modelNo: '', images, durationChosen: false };
    }
    case 'txt2video':
      break;
  }
  const wanted = modelOf(params, payload.model_no ?? '');
  const model = wanted && modelsForTab(params, tab).includes(wanted) ? wanted : modelOf(params, base.modelNo);
  // The duration is kept (snapped to the model's list) as if picked; it counts as picked only when one was sent.
  if (model) c = withModel(c, model, caller);
  if (model?.family === 'stream') c = { ...c, duration: DEFAULT_DURATION, durationChosen: false };
  return { ...c, durationChosen: c.durationChosen && sent };
}
