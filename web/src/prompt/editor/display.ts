// What the prompt editor shows for a word (spec 1 §3, §5): the name cut at 200
// characters and the weight only when it is not 1; plus the timing constant of
// the definition look-up (spec 1 §9) and the translation thresholds (spec 1 §5)
// that decide which words the editor asks to translate.

import { LV_DEFAULT } from './weight';

/** Spec 1 §5: a displayed word name is cut at 200 characters. */
export const NAME_MAX_CHARS = 200;

/** Spec 1 §9: the definition (dictionary look-up) of a hovered or typed word waits 200 ms. */
export const DEFINITION_DEBOUNCE_MS = 200;

/**
 * Cuts a name at `NAME_MAX_CHARS` characters. Characters are code points
 * (`Array.from`), so an emoji or a CJK supplement character is never split
 * into a lone surrogate. No ellipsis is added: the spec says "cut".
 */
export function displayName(text: string, max: number = NAME_MAX_CHARS): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max).join('');
}

/** The weight label of a word or group: `null` when the level is 1 (spec 1 §3: shown only when not 1). */
export function displayWeight(lv: number): string | null {
  if (lv === LV_DEFAULT) return null;
  return String(lv);
}

/** Spec 1 §5: text that is over 50 % Chinese is translated to English. */
export const TRANSLATE_TO_ENGLISH_ABOVE = 0.5;
/** Spec 1 §5: text under 5 % Chinese is given a translation (normal words only). */
export const GLOSS_BELOW = 0.05;

const HAN = /\p{Script=Han}/u;
const SPACE = /\s/u;

/**
 * Share of Han characters among the text's non-space characters (code points),
 * 0 for empty or all-space text. Punctuation and digits count as non-Chinese,
 * so "猫, 1girl" is 1/7 Chinese.
 */
export function chineseRatio(text: string): number {
  let total = 0;
  let han = 0;
  for (const ch of text) {
    if (SPACE.test(ch)) continue;
    total += 1;
    if (HAN.test(ch)) han += 1;
  }
  return total === 0 ? 0 : han / total;
}

/**
 * What the editor does with a word's text (spec 1 §5):
 * - `toEnglish`: over 50 % Chinese, the text itself is replaced by its English translation;
 * - `gloss`: under 5 % Chinese and a normal word, a translation is shown beside it (`langText`);
 * - `none`: otherwise (mixed text, or a style, quality, command or negative word for a gloss).
 */
export type TranslationNeed = 'toEnglish' | 'gloss' | 'none';

/** Applies the thresholds of spec 1 §5 to a word's text and sub-type. */
export function translationNeed(text: string, subType: string): TranslationNeed {
  if (text.trim() === '') return 'none';
  const ratio = chineseRatio(text);
  if (ratio > TRANSLATE_TO_ENGLISH_ABOVE) return 'toEnglish';
  if (ratio < GLOSS_BELOW && subType === 'normal') return 'gloss';
  return 'none';
}
