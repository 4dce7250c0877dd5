// Translation badges: the words whose language differs from the user's are
// sent to `/translate/locals` 200 ms after the words stop changing, once per
// session (TranslationCache); the hook re-renders when answers arrive.

import { useEffect, useMemo, useState } from 'react';
import { DEFINITION_DEBOUNCE_MS } from '../editor';
import type { Word } from '../types';
import { TranslationCache, wantsTranslation, type Poster, type TranslateItem } from './api';

let sessionCache: TranslationCache | null = null;

function cache(): TranslationCache {
  if (sessionCache === null) {
    let storage: Storage | null;
    try {
      storage = window.sessionStorage;
    } catch {
      storage = null;
    }
    sessionCache = new TranslationCache(storage);
  }
  return sessionCache;
}

/** The badge text of each word (null: no badge). */
export type BadgeOf = (word: Word) => string | null;

export function useTranslations(words: readonly Word[], language: string, api: Poster): BadgeOf {
  const [, setVersion] = useState(0);
  const items = useMemo<TranslateItem[]>(
    () =>
      words
        .filter((w) => w.type === 'word' && wantsTranslation(w.text, w.subType, language))
        .map((w) => ({ text: w.text, subType: w.subType })),
    [words, language],
  );
  const key = items.map((i) => `${i.subType}:${i.text}`).join('\n');

  useEffect(() => {
    if (cache().missing(language, items).length === 0) return;
    const timer = window.setTimeout(() => {
      void cache()
        .fetch(api, language, items)
        .then(() => setVersion((v) => v + 1));
    }, DEFINITION_DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
    // `key` stands for `items`: the effect runs when the texts change, not on every new array.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, language, api]);

  return (word) =>
    word.type === 'word' && wantsTranslation(word.text, word.subType, language)
      ? (cache().get(language, { text: word.text, subType: word.subType }) ?? null)
      : null;
}
