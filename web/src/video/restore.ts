// "Reuse" of a video task (spec 2 §4 "Restoring a task"): the tab a task
// opens in, mirroring protocol/src/video/codes.rs `restore_tab` (domain type
// 11 txt2video; 12 img2video, or img2Live2d for a Live2D (miniMax) model; 15
// effect; 25 multiImg2video; task type 42 without images txt2video, with
// images img2video), and the form filled from what the task view carries
// (prompt, size, count, seed, input pictures).
import type { VideoParams } from '../api/video';
import type { ImageInput } from '../generator/config';
import type { Task } from '../tasks/types';
import { DEFAULT_DURATION, defaultVideoConfig, modelOf, modelsForTab, withModel } from './model';
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
