// Hand-built words for the editor's tests (independent of the parsers).
import type { Word, WordSubType } from '../types';
import { createWord } from './preset';

/** A word as the parsers would give it, with `overrides` applied. */
export function word(rawText: string, overrides: Partial<Word> = {}): Word {
  const subType: WordSubType = overrides.subType ?? 'normal';
  return { ...createWord(rawText, subType), id: rawText, ...overrides };
}
