// Pure helpers of the prompt editor UI on top of the editor model
// (../editor): loading prompt texts into a preset, switching dialect while
// keeping the words, keyboard moves, the dictionary pad's default visibility.

import type { Dialect } from '../types';
import {
  addText,
  LIST_TYPES,
  listOf,
  renderPreset,
  setInput,
  setParser,
  type ListType,
  type Preset,
  type WordLocation,
} from '../editor';

/** The two texts the editor hands to its owner. */
export interface PromptTexts {
  prompt: string;
  negative: string;
}

/** The texts a preset renders to (for the bot dialect the negative words are inside the prompt as `--no`). */
export function textsOf(preset: Preset): PromptTexts {
  const rendered = renderPreset(preset);
  return { prompt: rendered.prompt, negative: rendered.negativePrompt };
}

/**
 * Loads prompt texts into a preset: the prompt is parsed with the preset's
 * dialect into one group (as typed input), then the separate negative prompt,
 * if any, is added to that group's negative list. Dictionary terms, name and
 * id are kept.
 */
export function presetFromTexts(preset: Preset, prompt: string, negative: string): Preset {
  const parsed = setInput(preset, prompt);
  if (negative.trim() === '') return parsed;
  const group = parsed.groups[0];
  return addText(parsed, negative, group === undefined ? { list: 'negative' } : { groupId: group.id, list: 'negative' });
}

/** True when the preset already renders exactly these texts (so loading them again would change nothing). */
export function rendersTo(preset: Preset, prompt: string, negative: string): boolean {
  const texts = textsOf(preset);
  return texts.prompt.trim() === prompt.trim() && texts.negative.trim() === negative.trim();
}

/**
 * Switches the dialect keeping the words, groups and weights: the output is
 * re-rendered in the new dialect (the editor model re-parses a non-blank input,
 * which would read text of one dialect with the other's rules, so the input is
 * replaced by the newly rendered prompt).
 */
export function switchDialect(preset: Preset, dialect: Dialect): Preset {
  if (preset.parser === dialect) return preset;
  const switched = setParser({ ...preset, input: '' }, dialect);
  return { ...switched, input: switched.output };
}

/** A key that moves a word: left/right within its list, up/down to the previous or next list. */
export type MoveKey = 'ArrowLeft' | 'ArrowRight' | 'ArrowUp' | 'ArrowDown';

export function isMoveKey(key: string): key is MoveKey {
  return key === 'ArrowLeft' || key === 'ArrowRight' || key === 'ArrowUp' || key === 'ArrowDown';
}

/**
 * Where a keyboard move takes a word, or `null` when it cannot move that way.
 * Left and right step within the list; up and down go to the end of the
 * previous or next list in the fixed order, crossing into the previous or
 * next group after its first or last list.
 */
export function keyboardTarget(preset: Preset, from: WordLocation, key: MoveKey): WordLocation | null {
  const groupIndex = preset.groups.findIndex((g) => g.id === from.groupId);
  const group = preset.groups[groupIndex];
  if (group === undefined) return null;
  const length = listOf(group, from.list).items.length;
  if (key === 'ArrowLeft') return from.index > 0 ? { ...from, index: from.index - 1 } : null;
  if (key === 'ArrowRight') return from.index < length - 1 ? { ...from, index: from.index + 1 } : null;

  const slots: Array<{ groupId: string; list: ListType }> = preset.groups.flatMap((g) =>
    LIST_TYPES.map((list) => ({ groupId: g.id, list })),
  );
  const here = slots.findIndex((s) => s.groupId === from.groupId && s.list === from.list);
  const next = slots[key === 'ArrowUp' ? here - 1 : here + 1];
  if (next === undefined) return null;
  const target = preset.groups.find((g) => g.id === next.groupId);
  const targetLength = target === undefined ? 0 : listOf(target, next.list).items.length;
  return { groupId: next.groupId, list: next.list, index: targetLength };
}

/** Spec 1 §2: the dictionary pad is shown by default only on non-mobile visits wider than 1215 px. */
export const DICTIONARY_MIN_WIDTH = 1215;

/** The dictionary pad's version label (spec 1 §2). */
export const DICTIONARY_VERSION = '1.4.3';

/** A mobile visit, by its user agent (phones and tablets). */
export function isMobileAgent(userAgent: string): boolean {
  return /Android|iPhone|iPad|iPod|Mobile|Silk|Kindle|BlackBerry|Opera Mini|IEMobile/i.test(userAgent);
}

/** Whether the dictionary pad starts open. */
export function dictionaryShownByDefault(windowWidth: number, userAgent: string): boolean {
  return windowWidth > DICTIONARY_MIN_WIDTH && !isMobileAgent(userAgent);
}

/** Drags start only after the pointer moved more than this many pixels (spec 1 §9). */
export const DRAG_THRESHOLD_PX = 10;

/** True once a press has moved far enough to be a drag. */
export function isDrag(dx: number, dy: number): boolean {
  return Math.hypot(dx, dy) > DRAG_THRESHOLD_PX;
}

/**
 * The index a dragged word gets in the target list, from the chip under the
 * pointer: before it when the pointer is on its left half, after it
 * otherwise; the end of the list when over no chip. Within the same list the
 * word's own removal shifts later positions by one.
 */
export function dropIndex(
  over: { index: number; after: boolean } | null,
  listLength: number,
  sameListFrom: number | null,
): number {
  let index = over === null ? listLength : over.index + (over.after ? 1 : 0);
  if (sameListFrom !== null && sameListFrom < index) index -= 1;
  const max = sameListFrom === null ? listLength : listLength - 1;
  return Math.max(0, Math.min(index, max));
}
