// Wire types and calls of the video feature (backend/src/routes/video.rs,
// protocol/src/video/{request,models,cost}.rs, spec 2 §7). Keep the field
// names exactly as on the wire.
import type { ApiClient, CallOptions } from './client';

export const VIDEO_BASE = '/api/v1/task/v2/video';
export const VIDEO_PATHS = {
  textToVideo: `${VIDEO_BASE}/text-to-video`,
  imgToVideo: `${VIDEO_BASE}/img-to-video`,
  multiImgToVideo: `${VIDEO_BASE}/multi-img-to-video`,
  estimate: `${VIDEO_BASE}/estimate`,
  modelGenParam: `${VIDEO_BASE}/model-gen-param`,
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
