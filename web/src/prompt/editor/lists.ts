// The typed word lists of a prompt group (spec 1 §3): which lists exist, their
// codes and fixed order, and which list a parsed word belongs to.

import type { Word, WordSubType } from '../types';

/** The list types in their fixed display and render order (spec 1 §3). */
export const LIST_TYPES = ['normal', 'style', 'quality', 'command', 'negative'] as const;

/** One of the five list types. */
export type ListType = (typeof LIST_TYPES)[number];

/** The spec's numeric code of each list type: normal 6, style 7, quality 8, command 9, negative 10. */
export const LIST_CODES = { normal: 6, style: 7, quality: 8, command: 9, negative: 10 } as const satisfies Record<
  ListType,
  number
>;

/** A list code (6..10). */
export type ListCode = (typeof LIST_CODES)[ListType];

/** One typed list of a group. `code` is kept beside `type` because stored and wire data use the code. */
export interface WordList {
  readonly type: ListType;
  readonly code: ListCode;
  readonly items: readonly Word[];
}

/** The list of type `type` in a group (groups are built with all five; an empty list if one is missing). */
export function listOf(group: { readonly lists: readonly WordList[] }, type: ListType): WordList {
  return group.lists.find((list) => list.type === type) ?? { type, code: LIST_CODES[type], items: [] };
}

/** The list type for a code, or `null` for a code outside 6..10. */
export function listTypeOfCode(code: number): ListType | null {
  return LIST_TYPES.find((type) => LIST_CODES[type] === code) ?? null;
}

/** True when `value` names a list type. */
export function isListType(value: unknown): value is ListType {
  return typeof value === 'string' && (LIST_TYPES as readonly string[]).includes(value);
}

/** Five empty lists in the fixed order. */
export function emptyLists(): readonly WordList[] {
  return LIST_TYPES.map((type) => ({ type, code: LIST_CODES[type], items: [] }));
}

/**
 * The list a parsed word goes to: a negative word (`isEg`, or sub-type `eg`)
 * to the negative list whatever its sub-type; otherwise the list named by its
 * sub-type; a word with an unknown or empty sub-type to the normal list.
 */
export function listTypeOfWord(word: Pick<Word, 'isEg' | 'subType'>): ListType {
  if (word.isEg || word.subType === 'eg') return 'negative';
  if (word.subType === 'style' || word.subType === 'quality' || word.subType === 'command') return word.subType;
  return 'normal';
}

/** The sub-type a word has in list `type` (the parsers' convention: `eg` for negative). */
export function subTypeOfList(type: ListType): WordSubType {
  return type === 'negative' ? 'eg' : type;
}

/**
 * Sorts words into the five lists, keeping their order within each list.
 * Positive words and negative words may be passed together or separately
 * (`egWords` are forced into the negative list even when their `isEg` is unset).
 */
export function classifyWords(words: readonly Word[], egWords: readonly Word[] = []): readonly WordList[] {
  const buckets = new Map<ListType, Word[]>(LIST_TYPES.map((type) => [type, []]));
  for (const word of words) buckets.get(listTypeOfWord(word))?.push(word);
  for (const word of egWords) buckets.get('negative')?.push(word);
  return LIST_TYPES.map((type) => ({ type, code: LIST_CODES[type], items: buckets.get(type) ?? [] }));
}

/**
 * The word as it should be when it sits in list `type`: `subType` and `isEg`
 * follow the list (`eg` and true for the negative list, as the parsers set
 * them), so classifying it again puts it back there and the renderers treat
 * it right; every other field (id, text, weight, disabled, args ...) is kept.
 * Returns the same object when nothing changes.
 */
export function fitWordToList(word: Word, type: ListType): Word {
  const subType = subTypeOfList(type);
  const isEg = type === 'negative';
  if (word.subType === subType && word.isEg === isEg) return word;
  return { ...word, subType, isEg };
}
