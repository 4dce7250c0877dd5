// The per-tab generation config (spec 1 §3), its defaults (§9) and the
// request body it becomes (§7). Pure: the atoms keep one TabConfig per tab.
import {
  canonicalCategory,
  Category,
  defaultCheckpoint,
  findCheckpoint,
  findFamily,
  isStudio,
  lorasFor,
} from './catalogue';
import type { Catalogue, Checkpoint, GenerationDefaults } from './catalogue';
import { defaultNIter } from './roles';
import type { Role } from './roles';
import { isBatch, STARTER_TAB, TAB_ACTION } from './tabs';
import type { TabId } from './tabs';

/** An uploaded image: its URL (http(s) or /files/...) and natural size. */
export interface ImageInput {
  url: string;
  width: number;
  height: number;
  name: string;
}

export interface LoraPick {
  model_id: string;
  model_ver_no: string;
  name: string;
  base_model: string;
  weight: number;
}

/** The control-net popup's unit (spec 1 §3 "Control-net unit"). */
export interface ControlNetConfig {
  module: string;
  weight: number;
  guidance_end: number;
  image: ImageInput | null;
}

export interface TabConfig {
  prompt: string;
  negative: string;
  /** The starter tab's look (an artwork). */
  artWorkNo: string;
  /** The checkpoint's `model_ver_no`; '' when none is chosen. */
  modelVerNo: string;
  loras: LoraPick[];
  width: number;
  height: number;
  /** Use the family's quality sizes in the aspect picker. */
  quality: boolean;
  sampler: string;
  steps: number;
  cfg: number;
  /** '' or -1 means random (spec 1 §5). */
  seed: string;
  nIter: number;
  denoising: number;
  /** The input image (init, condition for preview, face-swap target). */
  image: ImageInput | null;
  /** Image-to-image mask URL ('' while none); painted area transparent. */
  mask: string;
  /** Face swap: the face to put in. */
  faceSource: ImageInput | null;
  faceDistance: number;
  control: ControlNetConfig;
  scalingRatio: number;
  upScaler: string;
  leftMargin: number;
  upMargin: number;
  frames: number;
  /** Studio: ignore LoRA base-model compatibility (studio25). */
  loraIgnore: boolean;
}

/** Context the defaults and the request depend on. */
export interface ConfigContext {
  catalogue: Catalogue;
  /** Studio creative mode (`/studio`, category 7). */
  studio: boolean;
  role: Role;
  /** The n_iter the user last chose (free accounts), if stored. */
  storedNIter: number | null;
}

/** Upscale ratio bounds (the server clamps into 1..=4). */
export const UPSCALE_RATIO_RANGE = [1, 4] as const;
/** Animation frames: at most 48 (the server clamps). */
export const FRAMES_MAX = 48;
/** Mask and upscale output: at most this many pixels a side (spec 1 §4, §9). */
export const MAX_OUTPUT_SIDE = 4096;

/**
 * The defaults of a creative mode for a family (spec 1 §9, as the server's
 * `defaults_for`): the family's default size (studio keeps 832x1216),
 * Flux's cfg 3.5 and Euler sampler.
 */
export function generationDefaults(catalogue: Catalogue, category: number, family: string): GenerationDefaults | null {
  const c = canonicalCategory(category);
  const want = c === Category.Sdxl || c === Category.Studio ? c : Category.Normal;
  const base = catalogue.generation_params.find((g) => g.category === want);
  if (!base) return null;
  const d = { ...base };
  if (!isStudio(want)) {
    const f = findFamily(catalogue, family);
    if (f) {
      d.width = f.default_size.width;
      d.height = f.default_size.height;
    }
  }
  if (family === 'flux') {
    d.cfg_scale = 3.5;
    d.sampler = 'Euler';
  }
  return d;
}

/** The checkpoint a tab starts with: the starter look's, else the mode's default. */
function startCheckpoint(tab: TabId, ctx: ConfigContext): Checkpoint | undefined {
  const { catalogue, studio } = ctx;
  if (tab === STARTER_TAB && !studio) {
    const art = catalogue.artworks[0];
    if (art) return findCheckpoint(catalogue, art.model_ver_no);
  }
  return defaultCheckpoint(catalogue, studio ? Category.Studio : Category.Normal);
}

/** The category a config runs in: studio, else its checkpoint's. */
export function categoryOf(config: TabConfig, tab: TabId, ctx: Pick<ConfigContext, 'catalogue' | 'studio'>): number {
  if (ctx.studio) return Category.Studio;
  const ck = checkpointOf(config, tab, ctx.catalogue);
  return ck ? canonicalCategory(ck.category) : Category.Normal;
}

/** The checkpoint a config names (the starter tab: its look's). */
export function checkpointOf(config: TabConfig, tab: TabId, catalogue: Catalogue): Checkpoint | undefined {
  if (tab === STARTER_TAB && config.artWorkNo !== '') {
    const art = catalogue.artworks.find((a) => a.art_work_no === config.artWorkNo);
    return art ? findCheckpoint(catalogue, art.model_ver_no) : undefined;
  }
  return config.modelVerNo === '' ? undefined : findCheckpoint(catalogue, config.modelVerNo);
}

/** A tab's config with every default of spec 1 §9 for the role and mode. */
export function defaultConfig(tab: TabId, ctx: ConfigContext): TabConfig {
  const { catalogue, studio, role } = ctx;
  const ck = startCheckpoint(tab, ctx);
  const family = ck?.family ?? 'sd';
  const category = studio ? Category.Studio : (ck?.category ?? Category.Normal);
  const d = generationDefaults(catalogue, category, family);
  const upscaler = catalogue.upscalers.find((u) => u.is_default)?.name ?? d?.upscaler ?? '';
  return {
    prompt: '',
    negative: d?.negative_prompt ?? '',
    artWorkNo: tab === STARTER_TAB && !studio ? (catalogue.artworks[0]?.art_work_no ?? '') : '',
    modelVerNo: tab === STARTER_TAB && !studio ? '' : (ck?.model_ver_no ?? ''),
    loras: [],
    width: d?.width ?? 688,
    height: d?.height ?? 1024,
    quality: false,
    sampler: d?.sampler ?? '',
    steps: d?.steps ?? 20,
    cfg: d?.cfg_scale ?? 7,
    seed: '',
    nIter: defaultNIter(role, family, ctx.storedNIter),
    denoising: d?.denoising_strength ?? 0.35,
    image: null,
    mask: '',
    faceSource: null,
    faceDistance: d?.face_distance ?? 1.5,
    control: {
      module: catalogue.control_modules.find((m) => m === 'canny') ?? catalogue.control_modules[0] ?? 'none',
      weight: d?.controlnet_weight ?? 1,
      guidance_end: 1,
      image: null,
    },
    scalingRatio: d?.upscale_ratio ?? 2,
    upScaler: upscaler,
    leftMargin: 0,
    upMargin: 0,
    frames: d?.frames ?? 16,
    loraIgnore: false,
  };
}

/**
 * Switches a config to another checkpoint: the new family's default size
 * and sampler settings, and only the LoRAs that fit the new family (studio
 * keeps them: its LoRA-ignore switch decides, spec 1 §5 studio25).
 */
export function withCheckpoint(config: TabConfig, modelVerNo: string, ctx: ConfigContext): TabConfig {
  const ck = findCheckpoint(ctx.catalogue, modelVerNo);
  if (!ck) return { ...config, modelVerNo: '' };
  const category = ctx.studio ? Category.Studio : ck.category;
  const d = generationDefaults(ctx.catalogue, category, ck.family);
  const fits = new Set(lorasFor(ctx.catalogue, ck.family).map((l) => l.model_ver_no));
  return {
    ...config,
    modelVerNo,
    width: d?.width ?? config.width,
    height: d?.height ?? config.height,
    sampler: d?.sampler ?? config.sampler,
    steps: d?.steps ?? config.steps,
    cfg: d?.cfg_scale ?? config.cfg,
    negative: config.negative === '' || isDefaultNegative(config.negative, ctx.catalogue) ? (d?.negative_prompt ?? '') : config.negative,
    loras: ctx.studio ? config.loras : config.loras.filter((l) => fits.has(l.model_ver_no)),
  };
}

function isDefaultNegative(text: string, catalogue: Catalogue): boolean {
  return catalogue.generation_params.some((g) => g.negative_prompt !== '' && g.negative_prompt === text);
}

/** The seed to send: '' and -1 mean random (sent as -1). */
export function seedValue(seed: string): number {
  const t = seed.trim();
  if (t === '') return -1;
  const n = Number(t);
  return Number.isInteger(n) ? n : -1;
}

function imageRef(img: ImageInput): { url: string; width: number; height: number } {
  return { url: img.url, width: img.width, height: img.height };
}

/** The JSON body a tab posts (spec 1 §7: `action`, `category`, model, `meta`). */
export interface CreateBody {
  action: number;
  category: number;
  art_work_no?: string;
  art_model_ver_no?: string;
  g_mode?: number;
  meta: Record<string, unknown>;
}

export function buildRequest(tab: TabId, config: TabConfig, ctx: Pick<ConfigContext, 'catalogue' | 'studio' | 'role'>): CreateBody {
  const action = TAB_ACTION[tab];
  const category = categoryOf(config, tab, ctx);
  const body: CreateBody = { action, category, meta: {} };
  if (tab === STARTER_TAB && config.artWorkNo !== '' && !ctx.studio) body.art_work_no = config.artWorkNo;
  else if (config.modelVerNo !== '') body.art_model_ver_no = config.modelVerNo;
  if (ctx.role === 'visitor') body.g_mode = 1;

  const meta: Record<string, unknown> = {};
  const text = [1, 9, 10, 13, 24].includes(action);
  if (text) {
    meta.prompt = config.prompt.trim();
    meta.negative_prompt = config.negative.trim();
  }
  const checkpointRuns = [1, 9, 10, 13, 24, 25].includes(action);
  if (checkpointRuns && tab !== STARTER_TAB) {
    meta.lora_models = config.loras.map((l) => ({
      model_id: l.model_id,
      model_ver_no: l.model_ver_no,
      weight: l.weight,
      base_model: l.base_model,
    }));
    if (ctx.studio) meta.lora_ignore = config.loraIgnore;
  }
  if (text && tab !== STARTER_TAB) {
    meta.sampler_name = config.sampler;
    meta.steps = config.steps;
    meta.cfg_scale = config.cfg;
    meta.seed = seedValue(config.seed);
  }
  if (isBatch(tab)) meta.n_iter = config.nIter;
  if ([1, 9, 10, 13].includes(action)) {
    meta.width = config.width;
    meta.height = config.height;
  }
  if (action === 9) meta.denoising_strength = config.denoising;

  const img = config.image;
  switch (action) {
    case 9:
      if (img) {
        meta.imageUrl = img.url;
        meta.imgFiles = [imageRef(img)];
      }
      if (config.mask !== '') meta.mask = config.mask;
      break;
    case 10: {
      const c = config.control;
      if (c.image) {
        meta.controlnet_units = [
          {
            type: 'controlnet',
            module: c.module,
            weight: c.weight,
            guidance_end: c.guidance_end,
            processor_res: 512,
            threshold_a: 0.5,
            input_image: c.image.url,
          },
        ];
      }
      break;
    }
    case 12:
      if (img) {
        meta.controlnet_units = [{ type: 'controlnet', module: config.control.module, input_image: img.url }];
        meta.imgFiles = [imageRef(img)];
      }
      break;
    case 6:
      if (img) {
        meta.imageUrl = img.url;
        meta.imgFiles = [imageRef(img)];
      }
      meta.scaling_ratio = config.scalingRatio;
      meta.up_scaler = config.upScaler;
      break;
    case 13:
      if (img) {
        meta.imageUrl = img.url;
        meta.imgFiles = [imageRef(img)];
      }
      meta.left_margin = config.leftMargin;
      meta.up_margin = config.upMargin;
      break;
    case 22:
      meta.exchange_face = {
        target_uri: img?.url ?? '',
        source_uri: config.faceSource?.url ?? '',
        face_distance: config.faceDistance,
      };
      if (img) meta.imgFiles = [imageRef(img)];
      break;
    case 24:
      if (img) {
        meta.imageUrl = img.url;
        meta.imgFiles = [imageRef(img)];
      }
      meta.animatediff = { frames: config.frames };
      break;
    case 8:
    case 25:
      if (img) {
        meta.imageUrl = img.url;
        meta.imgFiles = [imageRef(img)];
      }
      break;
  }
  body.meta = meta;
  return body;
}

/** Expansion: margins that centre the image on the canvas. */
export function centredMargins(canvas: { width: number; height: number }, image: { width: number; height: number }): {
  left: number;
  up: number;
} {
  return {
    left: Math.max(0, Math.floor((canvas.width - image.width) / 2)),
    up: Math.max(0, Math.floor((canvas.height - image.height) / 2)),
  };
}
