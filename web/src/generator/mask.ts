// The image-to-image mask (spec 1 §4 "Mask"): what the user paints becomes
// TRANSPARENT in the uploaded PNG, everything else opaque; the mask has the
// image's size, at most 4096 px a side (larger images are fitted keeping
// their aspect ratio).
import { MAX_OUTPUT_SIDE } from './config';

/** Upload category of masks (spec 1 §7: "Mask upload: category 46, png"). */
export const MASK_UPLOAD_CATEGORY = 46;

/** The mask's size for an image: the image's, fitted to 4096 a side. */
export function maskSize(width: number, height: number, maxSide = MAX_OUTPUT_SIDE): { width: number; height: number } {
  const long = Math.max(width, height);
  if (long <= maxSide || long === 0) return { width, height };
  const scale = maxSide / long;
  return {
    width: Math.max(1, Math.min(maxSide, Math.round(width * scale))),
    height: Math.max(1, Math.min(maxSide, Math.round(height * scale))),
  };
}

/**
 * Turns the painter's layer (RGBA, painted pixels have alpha > 0) into the
 * mask's RGBA: painted pixels fully transparent, the rest opaque black.
 */
export function maskFromPaint(paint: Uint8ClampedArray): Uint8ClampedArray<ArrayBuffer> {
  const out = new Uint8ClampedArray(paint.length);
  for (let i = 0; i + 3 < paint.length; i += 4) {
    const painted = (paint[i + 3] ?? 0) > 0;
    out[i] = 0;
    out[i + 1] = 0;
    out[i + 2] = 0;
    out[i + 3] = painted ? 0 : 255;
  }
  return out;
}

/** Whether anything is painted. */
export function hasPaint(paint: Uint8ClampedArray): boolean {
  for (let i = 3; i < paint.length; i += 4) if ((paint[i] ?? 0) > 0) return true;
  return false;
}

/** Brush sizes offered (in mask pixels, scaled with the picture). */
export const BRUSH_SIZES = [16, 32, 64, 128] as const;

/** A point of a stroke in mask pixels, from a pointer position over the shown picture. */
export function toMaskPoint(
  clientX: number,
  clientY: number,
  rect: { left: number; top: number; width: number; height: number },
  mask: { width: number; height: number },
): { x: number; y: number } {
  const x = ((clientX - rect.left) / Math.max(1, rect.width)) * mask.width;
  const y = ((clientY - rect.top) / Math.max(1, rect.height)) * mask.height;
  return { x: Math.min(mask.width, Math.max(0, x)), y: Math.min(mask.height, Math.max(0, y)) };
}

/** Renders the painter's canvas to the PNG mask blob. */
export async function renderMaskPng(paintCanvas: HTMLCanvasElement): Promise<Blob> {
  const { width, height } = paintCanvas;
  const ctx = paintCanvas.getContext('2d');
  if (!ctx) throw new Error('no 2d context');
  const paint = ctx.getImageData(0, 0, width, height);
  const out = document.createElement('canvas');
  out.width = width;
  out.height = height;
  const octx = out.getContext('2d');
  if (!octx) throw new Error('no 2d context');
  octx.putImageData(new ImageData(maskFromPaint(paint.data), width, height), 0, 0);
  return new Promise((resolve, reject) =>
    out.toBlob((b) => (b ? resolve(b) : reject(new Error('the mask could not be encoded'))), 'image/png'),
  );
}
