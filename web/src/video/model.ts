// The video page's pure rules (spec 2 §2-§6): the five tabs, which models
// each tab offers, a tab's form config and how a model change reshapes it
// (sizes from the model's options, durations snapped to its list, n_iter
// capped, quality and camera kept only where the model has them, the last
// frame only with frame_ctl 2), the client-side checks, and the payload of
// spec 2 §7 each tab posts (exact wire field names).
import type {
  CameraModeLabel,
  EffectTemplate,
  ImageOpt,
  ModelParamConfig,
  ResolutionOption,
  VideoCreateBody,
  VideoEstimate,
  VideoParams,
} from '../api/video';
import { VIDEO_PATHS } from '../api/video';
import type { PaymentInfo } from '../api/types';
import type { ImageInput } from '../generator/config';
import type { Role } from '../generator/roles';

/** Spec 2 §2's tabs, in menu order. */
export const VIDEO_TABS = ['img2video', 'txt2video', 'img2Live2d', 'multiImg2video', 'effect'] as const;
export type VideoTab = (typeof VIDEO_TABS)[number];

export function isVideoTab(v: unknown): v is VideoTab {
  return typeof v === 'string' && (VIDEO_TABS as readonly string[]).includes(v);
}

/** §2 sub-tab (currentVideoTab) of each tab. */
export function subTabOf(tab: VideoTab): 'videoModel' | 'effect' | 'multiImage' {
  if (tab === 'effect') return 'effect';
  if (tab === 'multiImg2video') return 'multiImage';
  return 'videoModel';
}

export const CAMERA_MODES: readonly CameraModeLabel[] = ['Camera Movement', 'Horizontal', 'Vertical', 'Zoom', 'Pan'];
export const CAMERA_OFFSET_MIN = -10;
export const CAMERA_OFFSET_MAX = 10;
/** §9 multi-image: 4 slots, 9:16 at 720x1280, 5 s, ss 52, task_domain_type 25, kl_v1.6. */
export const MULTI_IMAGE_SLOTS = 4;
export const MULTI_IMAGE_SS = '52';
export const MULTI_IMAGE_TASK_DOMAIN_TYPE = 25;
export const MULTI_IMAGE_DEFAULT_MODEL = 'kl_v1.6';
export const MULTI_IMAGE_DEFAULT_SIZE: ResolutionOption = { aspect_ratio: '9:16', width: 720, height: 1280 };
/** §9 default duration and size; §5 size fallback 1280x720. */
export const DEFAULT_DURATION = 5;
export const FALLBACK_SIZE: ResolutionOption = { aspect_ratio: '16:9', width: 1280, height: 720 };
/** §4 the fixed duration. */
export const FIXED_DURATION = 5;
/** §6: 360p is free; the other quality modes are member-only. */
export const FREE_QUALITY = '360p';
/** §4 gen_mode default: product level 2 or above gives 1. */
export const GEN_MODE_DEFAULT_LEVEL = 2;

/** One tab's form. */
export interface VideoConfig {
  /** The model (`model_no`); empty on the effect tab. */
  modelNo: string;
  prompt: string;
  negative: string;
  /** The negative-prompt toggle (`enableNegativePrompts`). */
  enableNegative: boolean;
  width: number;
  height: number;
  aspectRatio: string;
  /** Seconds. */
  duration: number;
  /** The user picked the duration: a model change keeps it (snapped) instead of taking the model's default. */
  durationChosen: boolean;
  nIter: number;
  /** A quality mode of the model, or null when it has none. */
  quality: string | null;
  /** Null: no camera move. */
  cameraMode: CameraModeLabel | null;
  cameraOffset: number;
  /** img2video's first frame, img2Live2d's picture. */
  firstFrame: ImageInput | null;
  /** img2video's last frame (models with frame_ctl 2). */
  lastFrame: ImageInput | null;
  /** Multi-image slots (4) or the effect template's input slots. */
  images: (ImageInput | null)[];
  /** The effect template. */
  templateId: string | null;
  /** Empty: random. */
  seed: string;
}

/** The caller facts the rules read. */
export interface VideoCaller {
  role: Role;
  payment: PaymentInfo | null;
}

/** The models a tab offers: what the model can do (§4, backend `prepare`'s "able"). */
export function modelsForTab(params: VideoParams, tab: VideoTab): ModelParamConfig[] {
  switch (tab) {
    case 'img2video':
      return params.items.filter((m) => m.frame_ctl >= 1);
    case 'txt2video':
      return params.items.filter((m) => m.text_to_video);
    case 'img2Live2d':
      return params.items.filter((m) => m.live2d);
    case 'multiImg2video':
      return params.items.filter((m) => m.multi_image);
    case 'effect':
      return [];
  }
}

export function modelOf(params: VideoParams, modelNo: string): ModelParamConfig | null {
  return params.items.find((m) => m.model_no === modelNo) ?? null;
}

export function templateOf(params: VideoParams, id: string | null): EffectTemplate | null {
  return id === null ? null : (params.effects.find((t) => t.id === id) ?? null);
}

/** §4: the allowed duration nearest to `wanted` (ties to the shorter). */
export function snapDuration(allowed: readonly number[], wanted: number): number {
  let best: number | null = null;
  for (const d of allowed) {
    if (best === null || Math.abs(d - wanted) < Math.abs(best - wanted) || (Math.abs(d - wanted) === Math.abs(best - wanted) && d < best)) best = d;
  }
  return best ?? wanted;
}

/** §4 fixed durations: kl_v1.0 with a last frame or two images, kl_v2.0 always, Stream (Dance). */
export function fixedDuration(model: ModelParamConfig, hasLastFrame: boolean, imageCount: number): number | null {
  if (model.model_no === 'kl_v1.0') return hasLastFrame || imageCount >= 2 ? FIXED_DURATION : null;
  if (model.model_no === 'kl_v2.0' || model.family === 'stream') return FIXED_DURATION;
  return null;
}

/** §5 aspect match: |w/rw − h/rh| < 5. */
export function aspectMatches(width: number, height: number, ratio: string): boolean {
  const [rw, rh] = ratio.split(':').map(Number);
  if (!rw || !rh) return false;
  return Math.abs(width / rw - height / rh) < 5;
}

/**
 * §5 size fallback: the size itself when it is one of the model's options;
 * else the option of the same ratio; else the default option, the first,
 * or 1280x720.
 */
export function resolveSize(model: ModelParamConfig, width: number, height: number, ratio: string): ResolutionOption {
  const opts = model.resolution_param.options;
  return (
    opts.find((o) => o.width === width && o.height === height) ??
    opts.find((o) => o.aspect_ratio === ratio) ??
    opts.find((o) => aspectMatches(o.width, o.height, ratio)) ??
    model.resolution_param.dft_resolution ??
    opts[0] ??
    FALLBACK_SIZE
  );
}

/** §6: a member-only quality mode for this role. */
export function qualityLocked(quality: string, role: Role): boolean {
  return quality !== FREE_QUALITY && role !== 'paid';
}

/**
 * §4 gen_mode: 1 from product level 2 (members), else 0; kl_v1.5 and
 * kl_v1.6 use 0 in text-to-video and 1 with a last frame; without an
 * unlimited queue it is 0.
 */
export function genModeFor(model: ModelParamConfig | null, tab: VideoTab, hasLastFrame: boolean, payment: PaymentInfo | null): number {
  let mode = payment !== null && payment.productLevel >= GEN_MODE_DEFAULT_LEVEL ? 1 : 0;
  if (model && (model.model_no === 'kl_v1.5' || model.model_no === 'kl_v1.6')) {
    if (tab === 'txt2video') mode = 0;
    else if (hasLastFrame) mode = 1;
  }
  return payment?.infiniteQueue ? mode : 0;
}

function emptyConfig(): VideoConfig {
  return {
    modelNo: '',
    prompt: '',
    negative: '',
    enableNegative: false,
    width: FALLBACK_SIZE.width,
    height: FALLBACK_SIZE.height,
    aspectRatio: FALLBACK_SIZE.aspect_ratio,
    duration: DEFAULT_DURATION,
    durationChosen: false,
    nIter: 1,
    quality: null,
    cameraMode: null,
    cameraOffset: 0,
    firstFrame: null,
    lastFrame: null,
    images: [],
    templateId: null,
    seed: '',
  };
}

/**
 * The config after picking `modelNo`: size, duration, count, quality,
 * camera and frames made to fit the model (§4 "switching the model converts
 * the image items": a last frame is dropped when the model allows none).
 */
export function withModel(config: VideoConfig, model: ModelParamConfig, caller: VideoCaller): VideoConfig {
  const size = resolveSize(model, config.width, config.height, config.aspectRatio);
  const lastFrame = model.frame_ctl >= 2 ? config.lastFrame : null;
  const wanted = config.durationChosen ? config.duration : defaultDuration(model, caller);
  const snapped = snapDuration(model.duration_ctl.options, wanted);
  const images = config.images.filter((i) => i !== null).length;
  const quality = model.quality_modes.length === 0 ? null : config.quality !== null && model.quality_modes.includes(config.quality) ? config.quality : FREE_QUALITY;
  return {
    ...config,
    modelNo: model.model_no,
    width: size.width,
    height: size.height,
    aspectRatio: size.aspect_ratio,
    duration: fixedDuration(model, lastFrame !== null, images) ?? snapped,
    nIter: Math.max(1, Math.min(config.nIter, model.n_iter_max)),
    quality,
    cameraMode: model.camera_control ? config.cameraMode : null,
    cameraOffset: model.camera_control ? config.cameraOffset : 0,
    enableNegative: model.negative_prompt ? config.enableNegative : false,
    lastFrame,
  };
}

/** §4: members of product level 3 or above start at the longest duration; else the model's default. */
export function defaultDuration(model: ModelParamConfig, caller: VideoCaller): number {
  if (caller.role === 'paid' && (caller.payment?.productLevel ?? 0) >= 3) return Math.max(...model.duration_ctl.options, model.duration_ctl.default);
  return model.duration_ctl.default;
}

/** A tab's first config: its first model (multi-image: kl_v1.6, 9:16 720x1280, 5 s). */
export function defaultVideoConfig(tab: VideoTab, params: VideoParams, caller: VideoCaller): VideoConfig {
  const base = emptyConfig();
  if (tab === 'effect') {
    const t = params.effects[0] ?? null;
    return { ...base, templateId: t?.id ?? null, images: Array.from({ length: t?.inputs ?? 0 }, () => null), duration: t?.duration ?? DEFAULT_DURATION };
  }
  const models = modelsForTab(params, tab);
  const model = (tab === 'multiImg2video' ? models.find((m) => m.model_no === MULTI_IMAGE_DEFAULT_MODEL) : undefined) ?? models[0];
  if (tab === 'multiImg2video') {
    const start = { ...base, ...sizeFields(MULTI_IMAGE_DEFAULT_SIZE), images: Array.from({ length: MULTI_IMAGE_SLOTS }, () => null) };
    if (!model) return start;
    const c = withModel(start, model, caller);
    return { ...c, duration: fixedDuration(model, false, 0) ?? snapDuration(model.duration_ctl.options, DEFAULT_DURATION) };
  }
  return model ? withModel(base, model, caller) : base;
}

function sizeFields(o: ResolutionOption): Pick<VideoConfig, 'width' | 'height' | 'aspectRatio'> {
  return { width: o.width, height: o.height, aspectRatio: o.aspect_ratio };
}

/** The effect template's slots: the list cut (or padded) to its inputs (§5). */
export function withTemplate(config: VideoConfig, template: EffectTemplate): VideoConfig {
  const images = Array.from({ length: template.inputs }, (_, i) => config.images[i] ?? null);
  return { ...config, templateId: template.id, images, duration: template.duration };
}

/** A message key of a client-side check (the server checks the same, §5). */
export type VideoProblem = 'PromptNotEmpty' | 'pleaseSelectImage' | 'pleaseSelectEffect' | 'PleaseSelectBaseName' | 'videoQualityMemberOnly' | 'NeedLogin';

/** §5 in the page's order; `estimating` skips multi-image's image check. */
export function checkVideo(tab: VideoTab, config: VideoConfig, params: VideoParams, caller: VideoCaller, estimating = false): VideoProblem | null {
  if (caller.role === 'visitor') return 'NeedLogin';
  if (tab === 'effect') {
    const t = templateOf(params, config.templateId);
    if (!t) return 'pleaseSelectEffect';
    const slots = config.images.slice(0, t.inputs);
    if (slots.length < t.inputs || slots.some((s) => s === null)) return 'pleaseSelectImage';
    return null;
  }
  const model = modelOf(params, config.modelNo);
  if (!model || !modelsForTab(params, tab).includes(model)) return 'PleaseSelectBaseName';
  if ((tab === 'img2video' || tab === 'img2Live2d') && config.firstFrame === null) return 'pleaseSelectImage';
  if (tab === 'multiImg2video' && !estimating && config.images.every((i) => i === null)) return 'pleaseSelectImage';
  if (tab === 'txt2video' && config.prompt.trim() === '') return 'PromptNotEmpty';
  if (config.quality !== null && qualityLocked(config.quality, caller.role)) return 'videoQualityMemberOnly';
  return null;
}

/** The call a tab posts to (§7). */
export function videoCallPath(tab: VideoTab): string {
  switch (tab) {
    case 'txt2video':
      return VIDEO_PATHS.textToVideo;
    case 'multiImg2video':
      return VIDEO_PATHS.multiImgToVideo;
    default:
      return VIDEO_PATHS.imgToVideo;
  }
}

function imageOpts(tab: VideoTab, config: VideoConfig, model: ModelParamConfig | null, params: VideoParams): ImageOpt[] {
  switch (tab) {
    case 'txt2video':
      return [];
    case 'img2Live2d':
      return config.firstFrame ? [{ mode: 'live2d', url: config.firstFrame.url }] : [];
    case 'img2video': {
      const out: ImageOpt[] = [];
      const last = model !== null && model.frame_ctl >= 2 ? config.lastFrame : null;
      // §3: the single-image form is mode `image`; with a last frame the first is `first_frame`.
      if (config.firstFrame) out.push({ mode: last ? 'first_frame' : 'image', url: config.firstFrame.url });
      if (last) out.push({ mode: 'last_frame', url: last.url });
      return out;
    }
    case 'multiImg2video':
      return config.images.flatMap((i) => (i ? [{ mode: 'image' as const, url: i.url }] : []));
    case 'effect': {
      const inputs = templateOf(params, config.templateId)?.inputs ?? 0;
      return config.images.slice(0, inputs).map((i) => ({ mode: 'image' as const, url: i?.url ?? '' }));
    }
  }
}

/** The seed field: a whole number, or undefined (random). */
export function parseSeed(seed: string): number | undefined {
  const t = seed.trim();
  if (!/^\d+$/.test(t)) return undefined;
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Spec 2 §7's payload of a tab (also the estimate's body). */
export function buildVideoRequest(tab: VideoTab, config: VideoConfig, params: VideoParams, caller: VideoCaller): VideoCreateBody {
  const model = tab === 'effect' ? null : modelOf(params, config.modelNo);
  const opts = imageOpts(tab, config, model, params);
  const hasLast = opts.some((o) => o.mode === 'last_frame');
  const negative = model?.negative_prompt && config.enableNegative && config.negative.trim() !== '' ? config.negative : undefined;
  const seed = parseSeed(config.seed);
  const camera =
    model?.camera_control && config.cameraMode !== null && (tab === 'img2video' || tab === 'txt2video')
      ? { mode: config.cameraMode, offset: Math.max(CAMERA_OFFSET_MIN, Math.min(CAMERA_OFFSET_MAX, config.cameraOffset)) }
      : undefined;
  const duration = model ? (fixedDuration(model, hasLast, opts.length) ?? config.duration) : config.duration;
  const body: VideoCreateBody = {
    model_no: model?.model_no ?? '',
    model_ver_no: model?.model_no ?? '',
    meta: {
      prompt: config.prompt,
      ...(negative !== undefined ? { negative_prompt: negative } : {}),
      ...(tab === 'multiImg2video' ? { enableNegativePrompts: config.enableNegative } : {}),
      width: config.width,
      height: config.height,
      aspect_ratio: config.aspectRatio,
      n_iter: model ? Math.max(1, Math.min(config.nIter, model.n_iter_max)) : 1,
      ...(seed !== undefined ? { seed } : {}),
      generate: { gen_mode: genModeFor(model, tab, hasLast, caller.payment) },
      generate_video: {
        generate_video_duration: duration,
        ...(camera ? { camera_control_option: camera } : {}),
        image_opts: opts,
        ...(model && model.quality_modes.length > 0 && config.quality !== null ? { quality_mode: config.quality } : {}),
      },
      task_from: 'web',
    },
  };
  if (tab === 'effect') body.template_id = config.templateId ?? '';
  if (tab === 'multiImg2video') {
    body.ss = MULTI_IMAGE_SS;
    body.task_domain_type = MULTI_IMAGE_TASK_DOMAIN_TYPE;
  }
  return body;
}

/** §5: the discount is shown for a video model, a rate above 0 and has_discount. */
export function showDiscount(tab: VideoTab, estimate: VideoEstimate | null): boolean {
  return tab !== 'effect' && estimate !== null && estimate.discount_off_rate > 0 && estimate.has_discount;
}
