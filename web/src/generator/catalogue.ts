// The model catalogue served by `/api/v1/task/v2/config/model` (mirrors
// protocol/src/task/catalogue.rs and defaults.rs; keep field names as on the
// wire), and the pure helpers the pickers use: checkpoints by family and
// creative mode, LoRAs by the checkpoint's family, aspect options with their
// sizes, and the aspect-match rule of spec 1 §5.

export interface Size {
  width: number;
  height: number;
}

/** Spec 3 §3 "Image size limits". */
export interface SizeLimits {
  min: number;
  /** Smallest long side. */
  min_long: number;
  max: number;
  /** Largest side the server accepts (the family's quality sizes). */
  quality_max: number;
  ratio_min: number;
  ratio_max: number;
}

export interface Family {
  id: string;
  name: string;
  variants: string[];
  base_model_code: number;
  limits: SizeLimits;
  default_size: Size;
  /** How the family's aspect sizes are derived (long side or area). */
  standard: Sizing;
  quality: Sizing;
  wide: boolean;
}

export interface Sizing {
  by: 'long_side' | 'area';
  side: number;
}

export interface Checkpoint {
  model_no: string;
  model_ver_no: string;
  name: string;
  family: string;
  variant: string;
  base_model: number;
  /** Creative mode: 1 normal, 5 sdxl, 7 studio. */
  category: number;
  default_size: Size;
  is_default: boolean;
}

export interface Lora {
  model_id: string;
  model_ver_no: string;
  name: string;
  /** The family it was trained on. */
  base_model: string;
  weight: number;
  trained_words: string[];
}

/** A starter artwork: a published look the SIMPLE tab starts from. */
export interface Artwork {
  art_work_no: string;
  name: string;
  model_ver_no: string;
}

export interface FamilySize {
  family: string;
  standard: Size;
  quality: Size;
}

/** Spec 3 §9 aspect codes; code 5 is custom (no sizes). */
export interface AspectOption {
  code: number;
  label: string;
  ratio_w: number;
  ratio_h: number;
  orientation: 'vertical' | 'horizontal';
  icon: string;
  sizes: FamilySize[];
}

export interface StudioPreset {
  label: string;
  width: number;
  height: number;
}

export interface Sampler {
  id: string;
  name: string;
}

export interface Upscaler {
  name: string;
  is_default: boolean;
}

/** The generation defaults of one creative mode (spec 1 §9). */
export interface GenerationDefaults {
  category: number;
  mode: string;
  cfg_scale: number;
  guidance_scale: number;
  steps: number;
  sampler: string;
  clip_skip: number;
  denoising_strength: number;
  width: number;
  height: number;
  n_iter: number;
  n_iter_paid: number;
  seed: number;
  negative_prompt: string;
  upscale_ratio: number;
  upscaler: string;
  hr_scale: number;
  hr_upscaler: string;
  hr_second_pass_steps: number;
  hr_redraw: number;
  refiner_switch_at: number;
  face_restorer_weight: number;
  face_distance: number;
  inpaint_blur: number;
  inpaint_padding: number;
  prompt_magic: number;
  style: string;
  ad_denoising_strength: number;
  ad_confidence: number;
  controlnet_resolution: number;
  controlnet_threshold: number;
  controlnet_weight: number;
  frames: number;
  speed_type: number;
  studio: StudioDefaults | null;
}

/** Studio settings (spec 1 §3 "Studio lab_base", §9 values). */
export interface StudioDefaults {
  style_selections: string[];
  expand_token_length: number;
  scheduler: string;
  quality_detail_offset: number;
  hdr_intensity: number;
  auto_brightness_strength: number;
  auto_adjust_strength: number;
  sharpness: number;
  quality_mode: number;
  quality_type: string;
}

export interface Catalogue {
  engine_note: string;
  base_model_codes: { name: string; code: number }[];
  families: Family[];
  checkpoints: Checkpoint[];
  loras: Lora[];
  artworks: Artwork[];
  aspects: AspectOption[];
  studio_presets: StudioPreset[];
  samplers: Sampler[];
  upscalers: Upscaler[];
  control_modules: string[];
  generation_params: GenerationDefaults[];
}

/** Creative modes (spec 1 §4): 1 normal, 5 sdxl, 7 studio (11 read as 7), 3 bot. */
export const Category = {
  Normal: 1,
  Normal2: 2,
  Bot: 3,
  Sdxl: 5,
  Studio: 7,
  Studio11: 11,
} as const;

/** 11 is studio, 2 and 3 are normal (spec 1 §4). */
export function canonicalCategory(category: number): number {
  if (category === Category.Studio11) return Category.Studio;
  if (category === Category.Normal2 || category === Category.Bot) return Category.Normal;
  return category;
}

export function isStudio(category: number): boolean {
  return canonicalCategory(category) === Category.Studio;
}

/** The studio mode's size limits (spec 1 §9: min 768, max 1536). */
export const STUDIO_LIMITS: SizeLimits = {
  min: 768,
  min_long: 768,
  max: 1536,
  quality_max: 1536,
  ratio_min: 0.5,
  ratio_max: 2,
};

/** The custom aspect code. */
export const CUSTOM_ASPECT = 5;

/**
 * Spec 1 §5: a size matches an aspect option when
 * |width / ratio_w − height / ratio_h| < 5.
 */
export function aspectMatches(width: number, height: number, ratioW: number, ratioH: number): boolean {
  if (ratioW <= 0 || ratioH <= 0) return false;
  return Math.abs(width / ratioW - height / ratioH) < 5;
}

/** The code of the first option the size matches, else custom (5). */
export function matchAspect(width: number, height: number, aspects: readonly AspectOption[]): number {
  const hit = aspects.find((a) => a.code !== CUSTOM_ASPECT && aspectMatches(width, height, a.ratio_w, a.ratio_h));
  return hit ? hit.code : CUSTOM_ASPECT;
}

/** The options a family offers (21:9 only where it has sizes), custom last. */
export function aspectsFor(catalogue: Catalogue, family: string): AspectOption[] {
  const sized = catalogue.aspects.filter((a) => a.sizes.some((s) => s.family === family));
  const custom = catalogue.aspects.filter((a) => a.code === CUSTOM_ASPECT);
  return [...sized, ...custom];
}

/** The standard or quality size of aspect `code` for `family`. */
export function aspectSize(catalogue: Catalogue, code: number, family: string, quality: boolean): Size | null {
  const sizes = catalogue.aspects.find((a) => a.code === code)?.sizes.find((s) => s.family === family);
  if (!sizes) return null;
  return quality ? sizes.quality : sizes.standard;
}

export function findCheckpoint(catalogue: Catalogue, modelVerNo: string): Checkpoint | undefined {
  return catalogue.checkpoints.find((c) => c.model_ver_no === modelVerNo);
}

export function findFamily(catalogue: Catalogue, id: string): Family | undefined {
  return catalogue.families.find((f) => f.id === id);
}

/** The default checkpoint of a creative mode (2 and 3 use normal's). */
export function defaultCheckpoint(catalogue: Catalogue, category: number): Checkpoint | undefined {
  const c = canonicalCategory(category);
  const want = c === Category.Sdxl || c === Category.Studio ? c : Category.Normal;
  return catalogue.checkpoints.find((k) => k.is_default && k.category === want);
}

/**
 * The checkpoints a picker offers, grouped by family in catalogue order:
 * studio mode offers the studio checkpoints, the other modes the rest.
 */
export function checkpointGroups(
  catalogue: Catalogue,
  studio: boolean,
): { family: Family; checkpoints: Checkpoint[] }[] {
  const groups: { family: Family; checkpoints: Checkpoint[] }[] = [];
  for (const family of catalogue.families) {
    const checkpoints = catalogue.checkpoints.filter(
      (c) => c.family === family.id && isStudio(c.category) === studio,
    );
    if (checkpoints.length > 0) groups.push({ family, checkpoints });
  }
  return groups;
}

/** LoRAs trained on the checkpoint's family. */
export function lorasFor(catalogue: Catalogue, family: string): Lora[] {
  return catalogue.loras.filter((l) => l.base_model === family);
}

/** Size limits of a family, or the studio's. */
export function limitsFor(catalogue: Catalogue, family: string, studio: boolean): SizeLimits | null {
  if (studio) return STUDIO_LIMITS;
  return findFamily(catalogue, family)?.limits ?? null;
}

export type SizeProblem = 'ImageSizeTooSmall' | 'ImageSizeTooLarge' | 'ImageRatioInvalid';

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Spec 1 §5 size checks, as the server makes them. */
export function checkSize(width: number, height: number, limits: SizeLimits): SizeProblem | null {
  if (width < limits.min || height < limits.min || Math.max(width, height) < limits.min_long) {
    return 'ImageSizeTooSmall';
  }
  if (width > limits.quality_max || height > limits.quality_max) return 'ImageSizeTooLarge';
  const ratio = round2(width / height);
  if (ratio < round2(limits.ratio_min) || ratio > round2(limits.ratio_max)) return 'ImageRatioInvalid';
  return null;
}
