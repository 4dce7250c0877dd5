// Wire types and calls of the video feature (backend/src/routes/video.rs,
// protocol/src/video/{request,models,cost}.rs, spec 2 §7). Keep the field
// names exactly as on the wire.
import type { ListAnswer } from '../tasks/types';
import type { ApiClient, CallOptions } from './client';

export const VIDEO_BASE = '/api/v1/task/v2/video';
export const VIDEO_PATHS = {
  textToVideo: `${VIDEO_BASE}/text-to-video`,
  imgToVideo: `${VIDEO_BASE}/img-to-video`,
  multiImgToVideo: `${VIDEO_BASE}/multi-img-to-video`,
  estimate: `${VIDEO_BASE}/estimate`,
  modelGenParam: `${VIDEO_BASE}/model-gen-param`,
  getMetaInfo: `${VIDEO_BASE}/get-meta-info`,
  histories: `${VIDEO_BASE}/histories`,
} as const;

/** A `resolution_param.options[]` entry. */
export interface ResolutionOption {
  aspect_ratio: string;
  width: number;
  height: number;
}

/** One model's parameter config (`ModelParamConfig`). */
export interface ModelParamConfig {
  model_no: string;
  name: string;
  family: string;
  resolution_param: { options: ResolutionOption[]; dft_resolution: ResolutionOption | null };
  /** 0 no image, 1 a first frame, 2 first and last frames. */
  frame_ctl: number;
  duration_ctl: { options: number[]; default: number };
  enable_gen_mode_ctl: boolean;
  text_to_video: boolean;
  live2d: boolean;
  multi_image: boolean;
  camera_control: boolean;
  negative_prompt: boolean;
  n_iter_max: number;
  /** `"360p"`, `"540p"`, `"720p"`, `"1080p"`; empty when the model has none. */
  quality_modes: string[];
  fps: number;
}

/** An effect template (`SpecialEffectsAppInfo`). */
export interface EffectTemplate {
  id: string;
  name: string;
  /** Number of image input slots. */
  inputs: number;
  duration: number;
  fps: number;
  credits: number;
}

/** `model-gen-param`'s data. */
export interface VideoParams {
  items: ModelParamConfig[];
  effects: EffectTemplate[];
  /** What renders videos on this server, e.g. "Easel reference video (non-neural)". */
  engine: string;
  neural: boolean;
}

export type CameraModeLabel = 'Camera Movement' | 'Horizontal' | 'Vertical' | 'Zoom' | 'Pan';
export type ImageOptMode = 'first_frame' | 'last_frame' | 'image' | 'live2d';

export interface ImageOpt {
  mode: ImageOptMode;
  url: string;
}

export interface GenerateVideo {
  generate_video_duration: number;
  camera_control_option?: { mode: CameraModeLabel; offset: number };
  image_opts: ImageOpt[];
  quality_mode?: string;
}

/** The create and estimate body (spec 2 §7). */
export interface VideoCreateBody {
  model_no: string;
  model_ver_no: string;
  template_id?: string;
  meta: {
    prompt: string;
    negative_prompt?: string;
    enableNegativePrompts?: boolean;
    width: number;
    height: number;
    aspect_ratio: string;
    n_iter: number;
    seed?: number;
    generate: { gen_mode: number };
    generate_video: GenerateVideo;
    task_from: 'web';
  };
  ss?: string;
  task_domain_type?: number;
}

/** `estimate`'s data (protocol/src/video/cost.rs `VideoEstimate`). */
export interface VideoEstimate {
  calculate_coins: number;
  discount_off_rate: number;
  calculate_coins_before_discount: number;
  has_discount: boolean;
  estimate_time: number;
}

type Poster = Pick<ApiClient, 'post'>;

export function fetchVideoParams(api: Poster, options?: CallOptions): Promise<VideoParams> {
  return api.post<VideoParams>(VIDEO_PATHS.modelGenParam, undefined, options);
}

export function createVideo(api: Poster, path: string, body: VideoCreateBody, options?: CallOptions): Promise<{ id: string }> {
  return api.post<{ id: string }>(path, body, options);
}

export function estimateVideo(api: Poster, body: VideoCreateBody, options?: CallOptions): Promise<VideoEstimate> {
  return api.post<VideoEstimate>(VIDEO_PATHS.estimate, body, options);
}

/**
 * A video task's create payload as `get-meta-info` gives it back: the body
 * as sent, re-serialized by the server (protocol/src/video/request.rs), so
 * any field may be missing or null, and a camera mode may be a label
 * (`Zoom`) or a wire name (`camera_movement`).
 */
export interface StoredVideoPayload {
  model_no?: string | null;
  model_ver_no?: string | null;
  template_id?: string | null;
  ss?: string | null;
  task_domain_type?: number | null;
  meta?: {
    prompt?: string | null;
    negative_prompt?: string | null;
    enableNegativePrompts?: boolean | null;
    width?: number | null;
    height?: number | null;
    aspect_ratio?: string | null;
    n_iter?: number | null;
    seed?: number | null;
    generate_video?: {
      generate_video_duration?: number | null;
      camera_control_option?: { mode?: string | null; offset?: number | null } | null;
      image_opts?: { mode?: string | null; url?: string | null }[] | null;
      quality_mode?: string | null;
    } | null;
  } | null;
}

/** `get-meta-info`'s data (backend/src/routes/video.rs `get_meta_info`). */
export interface VideoMetaInfo {
  task_id: string;
  task_flow_version: string;
  /** The action's name, e.g. `textToVideo`. */
  action: string;
  task_domain_type: number;
  /** The tab the task restores into (codes.rs `restore_tab`), or null. */
  tab: string | null;
  payload: StoredVideoPayload;
  video_uris: string[];
}

/** The only task flow this server has. */
export const TASK_FLOW_VERSION = 'v2';

/** An own video task's create payload and restore tab; NotFound for another's task or a non-video task. */
export function fetchVideoMetaInfo(api: Poster, taskId: string, options?: CallOptions): Promise<VideoMetaInfo> {
  return api.post<VideoMetaInfo>(VIDEO_PATHS.getMetaInfo, { task_id: taskId, task_flow_version: TASK_FLOW_VERSION }, options);
}

/** The caller's finished video tasks (the tools included), newest first. */
export function fetchVideoHistories(api: Poster, body: { limit?: number; cursor?: string }, options?: CallOptions): Promise<ListAnswer> {
  return api.post<ListAnswer>(VIDEO_PATHS.histories, body, options);
}
