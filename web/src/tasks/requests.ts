// Request bodies of the action bar's new tasks (pure), checked against
// protocol/src/task/rules.rs: upscales need the source size, expansion and
// variation run a checkpoint (the catalogue's default for the task's
// creative mode), expansion also needs the prompt and margins that fit.
import { Action } from './types';
import type { Task } from './types';

/** One output image of a task, with its size. */
export interface SourceImage {
  url: string;
  width: number;
  height: number;
}

/** The largest side the server makes (spec 1 §5 ImageSizeExceedsError). */
export const MAX_SIDE = 4096;
/** Upscale's factor: the result is twice the size. */
export const UPSCALE_RATIO = 2;
/** Extra upscale's factor, lowered to fit MAX_SIDE. */
export const EXTRA_UPSCALE_RATIO = 4;

/** The outputs of a successful task, with sizes (falling back to the task's). */
export function sourceImages(task: Task): SourceImage[] {
  return task.img_uris.map((url, i) => {
    const out = task.outputs.find((o) => o.url === url) ?? task.outputs[i];
    return { url, width: out?.width ?? task.width, height: out?.height ?? task.height };
  });
}

/** Creative mode as the catalogue files checkpoints: 11 is studio, 2 normal. */
export function canonicalCategory(category: number): number {
  if (category === 11) return 7;
  if (category === 2) return 1;
  return category;
}

export interface CatalogueCheckpoint {
  model_ver_no: string;
  category: number;
  is_default: boolean;
}

/** The catalogue's default checkpoint for a task's creative mode (bot-style uses normal's). */
export function defaultCheckpoint(checkpoints: readonly CatalogueCheckpoint[], category: number): string | null {
  const c = canonicalCategory(category);
  const want = c === 5 || c === 7 ? c : 1;
  return checkpoints.find((m) => m.is_default && m.category === want)?.model_ver_no ?? null;
}

/** A request: the path to POST and its body. */
export interface TaskCall {
  path: string;
  body: Record<string, unknown>;
}

function sizeMeta(img: SourceImage): Record<string, unknown> {
  return { imageUrl: img.url, width: img.width, height: img.height };
}

export function upscaleCall(task: Task, img: SourceImage): TaskCall {
  return {
    path: '/api/v1/task/v2/upscale',
    body: { parent_task_id: task.id, meta: { ...sizeMeta(img), scaling_ratio: UPSCALE_RATIO } },
  };
}

/** The largest ratio up to {@link EXTRA_UPSCALE_RATIO} that keeps both sides within MAX_SIDE. */
export function extraUpscaleRatio(img: Pick<SourceImage, 'width' | 'height'>): number {
  const fit = MAX_SIDE / Math.max(img.width, img.height, 1);
  return Math.max(1, Math.min(EXTRA_UPSCALE_RATIO, Math.floor(fit * 100) / 100));
}

export function extraUpscaleCall(task: Task, img: SourceImage): TaskCall {
  return {
    path: '/api/v1/task/create',
    body: {
      action: Action.ExtraUpscale,
      parent_task_id: task.id,
      meta: { ...sizeMeta(img), scaling_ratio: extraUpscaleRatio(img) },
    },
  };
}

export function variationCall(task: Task, img: SourceImage, checkpoint: string | null): TaskCall {
  return {
    path: '/api/v1/task/v2/make-variation',
    body: {
      parent_task_id: task.id,
      category: canonicalCategory(task.category),
      ...(checkpoint ? { art_model_ver_no: checkpoint } : {}),
      meta: { ...sizeMeta(img), prompt: task.prompt, n_iter: 1 },
    },
  };
}

export function removeBackgroundCall(task: Task, img: SourceImage): TaskCall {
  return {
    path: '/api/v1/task/create',
    body: { action: Action.RemoveBackground, parent_task_id: task.id, meta: sizeMeta(img) },
  };
}

export interface Margins {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** The expanded canvas. */
export function expandedSize(img: Pick<SourceImage, 'width' | 'height'>, m: Margins): { width: number; height: number } {
  return { width: img.width + m.left + m.right, height: img.height + m.top + m.bottom };
}

/** Margins are whole non-negative pixels and the canvas fits MAX_SIDE. */
export function marginsValid(img: Pick<SourceImage, 'width' | 'height'>, m: Margins): boolean {
  const all = [m.left, m.right, m.top, m.bottom];
  if (!all.every((v) => Number.isInteger(v) && v >= 0)) return false;
  if (all.every((v) => v === 0)) return false;
  const size = expandedSize(img, m);
  return size.width <= MAX_SIDE && size.height <= MAX_SIDE;
}

export function expandCall(task: Task, img: SourceImage, m: Margins, checkpoint: string | null): TaskCall {
  const size = expandedSize(img, m);
  return {
    path: '/api/v1/task/create',
    body: {
      action: Action.Expansion,
      parent_task_id: task.id,
      category: canonicalCategory(task.category),
      ...(checkpoint ? { art_model_ver_no: checkpoint } : {}),
      meta: {
        prompt: task.prompt,
        imgFiles: [{ url: img.url, width: img.width, height: img.height }],
        width: size.width,
        height: size.height,
        left_margin: m.left,
        up_margin: m.top,
        n_iter: 1,
      },
    },
  };
}

/** An absolute URL for an output path (`/files/...`), for sharing. */
export function absoluteUrl(url: string, origin: string): string {
  try {
    return new URL(url, origin).href;
  } catch {
    return url;
  }
}

/** The file name of a download answer's `Content-Disposition`, else a fallback. */
export function dispositionName(header: string | null, fallback: string): string {
  if (!header) return fallback;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (star?.[1]) {
    try {
      return decodeURIComponent(star[1]);
    } catch {
      return fallback;
    }
  }
  const plain = /filename="?([^";]+)"?/i.exec(header);
  return plain?.[1]?.trim() || fallback;
}
