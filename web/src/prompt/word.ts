// Word construction and the number rules both dialects share (mirror of
// protocol/src/prompt/word.rs): two-decimal rounding, the clamp, the 1.1 step
// level, number formatting and duplicate-counting ids.

import type { Word, WordSubType, WordType } from './types';

export const DISPLAY_CHARS = 200;
export const WEIGHT_STEP = 1.1;
export const LV_LIMIT = 10_000;
const MAX_STEP_LEVEL = 8;

/** Two decimals, halves away from zero, never -0 (same doubles as Rust). */
export function round2(x: number): number {
  const r = Math.floor(Math.abs(x) * 100 + 0.5) / 100;
  return (x < 0 ? -r : r) + 0;
}

export function clampLv(x: number): number {
  return Math.min(Math.max(x, -LV_LIMIT), LV_LIMIT);
}

/** k when lv is round2(1.1^k) for 1 <= |k| <= 8, else 0. */
export function stepLevel(lv: number): number {
  let up = 1;
  let down = 1;
  for (let k = 1; k <= MAX_STEP_LEVEL; k += 1) {
    up *= WEIGHT_STEP;
    down /= WEIGHT_STEP;
    if (lv === round2(up)) return k;
    if (lv === round2(down)) return -k;
  }
  return 0;
}

/** Shortest form without trailing zeros (`1.2`, `2`, `-0.5`). */
export function formatNumber(x: number): string {
  return String(x);
}

/** The display cut: the first 200 code points. */
export function cutDisplay(raw: string): string {
  return Array.from(raw).slice(0, DISPLAY_CHARS).join('');
}

export function newWord(type: WordType, subType: WordSubType, rawText: string): Word {
  return {
    id: '',
    text: cutDisplay(rawText),
    rawText,
    langText: '',
    type,
    subType,
    isEg: subType === 'eg',
    group: 0,
    lv: 1,
    alv: 0,
    desc: '',
    dir: '',
    link: '',
    args: [],
    disabled: false,
    isAlias: false,
  };
}

/** Sets the weight (clamped, rounded) and its step level. */
export function withLv(word: Word, lv: number): Word {
  const rounded = round2(clampLv(lv));
  return { ...word, lv: rounded, alv: stepLevel(rounded) };
}

/** `rawText`, then `rawText#n` for duplicates, unique over words then egWords. */
export function assignIds(words: Word[], egWords: Word[]): void {
  const seen = new Map<string, number>();
  const taken = new Set<string>();
  for (const w of [...words, ...egWords]) {
    let n = seen.get(w.rawText) ?? 0;
    let id = n === 0 ? w.rawText : `${w.rawText}#${n}`;
    while (taken.has(id)) {
      n += 1;
      id = `${w.rawText}#${n}`;
    }
    seen.set(w.rawText, n + 1);
    taken.add(id);
    w.id = id;
  }
}
