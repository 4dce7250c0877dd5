// Weight levels (`lv`) of prompt words and groups in the editor: the 1.1 step
// of spec 1 §9, rounding to two decimals as the web-UI dialect does (spec 1
// §5), and the bounds the editor's +/- buttons stop at.

import { round2, stepLevel } from '../index';

/** Spec 1 §9: one press of + multiplies the weight by 1.1, one press of - divides by it. */
export const WEIGHT_STEP = 1.1;

/**
 * Smallest magnitude the step buttons reach. Below 0.1 two-decimal rounding
 * makes the step stall (0.05 / 1.1 rounds back to 0.05), and a web-UI weight
 * that small is indistinguishable from removing the word.
 */
export const LV_MIN = 0.1;

/**
 * Largest magnitude the step buttons reach. Web UI accepts any number, but past
 * about 2 images break down; 10 leaves room for the bot dialect's larger
 * `::` weights while keeping a runaway click-and-hold bounded.
 */
export const LV_MAX = 10;

/** The default level: a word or group with this level shows no weight. */
export const LV_DEFAULT = 1;

/**
 * Rounds to two decimals, halves away from zero, never `-0`: the parsers'
 * `round2` (the same doubles as protocol's), so a weight the editor steps
 * prints exactly as a parsed one. Non-finite input gives 1.
 */
export function roundLv(lv: number): number {
  return Number.isFinite(lv) ? round2(lv) : LV_DEFAULT;
}

/**
 * Clamps a level's magnitude into [LV_MIN, LV_MAX] keeping its sign, and rounds
 * it. Zero stays zero: the bot dialect allows `::0` and only an explicit edit
 * sets it. Non-finite input becomes the default level.
 */
export function clampLv(lv: number): number {
  if (!Number.isFinite(lv)) return LV_DEFAULT;
  if (lv === 0) return 0;
  const magnitude = Math.min(LV_MAX, Math.max(LV_MIN, Math.abs(lv)));
  return roundLv(lv < 0 ? -magnitude : magnitude);
}

/** Direction of one step: `up` makes the value larger, `down` smaller. */
export type StepDirection = 'up' | 'down';

/**
 * One press of + or -. A positive level is multiplied (up) or divided (down)
 * by 1.1; a negative level (bot dialect) moves the same way on the number line,
 * so `up` divides its magnitude and `down` multiplies it. The result is rounded
 * to two decimals and clamped into ±[LV_MIN, LV_MAX]. A zero level has no
 * multiplicative step and is returned unchanged.
 *
 * 1 → 1.1 → 1.21 → 1.33 going up; 1 → 0.91 → 0.83 going down.
 */
export function stepLv(lv: number, direction: StepDirection): number {
  if (!Number.isFinite(lv)) return LV_DEFAULT;
  if (lv === 0) return 0;
  const grow = (direction === 'up') === lv > 0;
  const next = grow ? lv * WEIGHT_STEP : lv / WEIGHT_STEP;
  return clampLv(next);
}

/**
 * A word's `alv` for a level: the parsers' `stepLevel` (k when `lv` is 1.1^k
 * rounded, |k| <= 8, else 0), so an edited word carries the `alv` a parse of
 * its rendered text would give.
 */
export function stepLevelOf(lv: number): number {
  return stepLevel(lv);
}
