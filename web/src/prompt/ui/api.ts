// The prompt editor's two server calls (backend/src/routes/translate.rs):
// the dictionary pad's terms (`POST /api/v1/prompt/definitions`) and word
// translations (`POST /api/v1/translate/locals`), with the per-session
// translation cache.

import type { ApiClient } from '../../api/client';
import { translationNeed } from '../editor';
import type { WordSubType } from '../types';

/** The part of the API client these calls use (tests pass a fake). */
export type Poster = Pick<ApiClient, 'post'>;

/** One dictionary term as the server sends it. */
export interface Definition {
  /** The English term (the dictionary key). */
  term: string;
  /** The English text a prompt uses. */
  text: string;
  /** The text in the requested language (the English text when untranslated). */
  lang: string;
  /** The editor list type: normal, style, quality or eg. */
  subType: string;
  desc: string;
  /** The category. */
  dir: string;
  isAlias: boolean;
  translated: boolean;
}

export interface DefinitionCategory {
  name: string;
  count: number;
}

/** One page of `/prompt/definitions`. */
export interface DefinitionsPage {
  language: string;
  categories: DefinitionCategory[];
  total: number;
  items: Definition[];
  next_cursor: string | null;
}

export interface DefinitionsQuery {
  language: string;
  category?: string | null;
  cursor?: string | null;
  limit?: number;
}

/** Terms per page of the dictionary pad. */
export const DEFINITIONS_PAGE = 120;

export function fetchDefinitions(api: Poster, query: DefinitionsQuery, signal?: AbortSignal): Promise<DefinitionsPage> {
  const body = {
    language: query.language,
    limit: query.limit ?? DEFINITIONS_PAGE,
    ...(query.category ? { category: query.category } : {}),
    ...(query.cursor ? { cursor: query.cursor } : {}),
  };
  return api.post<DefinitionsPage>('/api/v1/prompt/definitions', body, signal ? { signal } : {});
}

/** One translated text as the server sends it. */
export interface TranslatedText {
  text: string;
  /** `to_english`, `to_local` or `keep`. */
  plan: 'to_english' | 'to_local' | 'keep';
  source: string;
  target: string;
  translation: string | null;
  unknown: string[];
  provider: string | null;
  cached: boolean;
}

interface LocalsAnswer {
  language: string;
  items: TranslatedText[];
}

/** At most this many texts per call (backend MAX_TEXTS). */
export const TRANSLATE_BATCH = 100;

/** The translate call's text kind for a word's sub-type. */
function kindOf(subType: WordSubType | string): string {
  return subType === 'eg' || subType === 'style' || subType === 'quality' || subType === 'command' ? subType : 'normal';
}

export interface TranslateItem {
  text: string;
  subType: string;
}

/**
 * Whether a word is worth asking about (spec 1 §5): mostly Chinese text is
 * translated to English; text with hardly any Chinese gets a translation into
 * the user's language, which English itself does not need.
 */
export function wantsTranslation(text: string, subType: string, language: string): boolean {
  const need = translationNeed(text, subType);
  if (need === 'toEnglish') return true;
  return need === 'gloss' && language !== 'en';
}

/** The translation to show as a badge: a real translation that differs from the text, else null. */
export function badgeText(item: Pick<TranslatedText, 'text' | 'plan' | 'translation'>): string | null {
  if (item.plan === 'keep' || item.translation === null) return null;
  const t = item.translation.trim();
  return t === '' || t.toLowerCase() === item.text.trim().toLowerCase() ? null : t;
}

/**
 * The page session's translations: each text asked once per language and
 * kind. Answers are kept in memory and in `sessionStorage`, so a reload in the
 * same tab does not ask again.
 */
export class TranslationCache {
  private readonly answers = new Map<string, string | null>();
  private readonly pending = new Set<string>();
  private readonly storage: Pick<Storage, 'getItem' | 'setItem'> | null;
  static readonly STORAGE_KEY = 'easel.prompt.translations';

  constructor(storage: Pick<Storage, 'getItem' | 'setItem'> | null) {
    this.storage = storage;
    try {
      const raw = storage?.getItem(TranslationCache.STORAGE_KEY);
      const saved: unknown = raw ? JSON.parse(raw) : null;
      if (saved !== null && typeof saved === 'object' && !Array.isArray(saved)) {
        for (const [k, v] of Object.entries(saved as Record<string, unknown>)) {
          if (typeof v === 'string' || v === null) this.answers.set(k, v);
        }
      }
    } catch (error) {
      console.warn('prompt editor: ignoring the stored translations', error);
    }
  }

  static key(language: string, item: TranslateItem): string {
    return `${language}\u0000${kindOf(item.subType)}\u0000${item.text}`;
  }

  /** The badge for a text: a string, null (nothing to show), or undefined (not known yet). */
  get(language: string, item: TranslateItem): string | null | undefined {
    return this.answers.get(TranslationCache.key(language, item));
  }

  /** The items neither known nor being asked, without duplicates. */
  missing(language: string, items: readonly TranslateItem[]): TranslateItem[] {
    const seen = new Set<string>();
    return items.filter((item) => {
      const key = TranslationCache.key(language, item);
      if (seen.has(key) || this.answers.has(key) || this.pending.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  /** Asks the server about `items` (in batches); resolves once the answers are stored. Failures are logged and retried on the next call. */
  async fetch(api: Poster, language: string, items: readonly TranslateItem[]): Promise<void> {
    const todo = this.missing(language, items);
    if (todo.length === 0) return;
    const keys = todo.map((item) => TranslationCache.key(language, item));
    keys.forEach((k) => this.pending.add(k));
    try {
      for (let start = 0; start < todo.length; start += TRANSLATE_BATCH) {
        const batch = todo.slice(start, start + TRANSLATE_BATCH);
        const answer = await api.post<LocalsAnswer>('/api/v1/translate/locals', {
          language,
          texts: batch.map((item) => ({ text: item.text, type: kindOf(item.subType) })),
        });
        batch.forEach((item, i) => {
          const got = answer.items[i];
          this.answers.set(TranslationCache.key(language, item), got === undefined ? null : badgeText(got));
        });
      }
      this.save();
    } catch (error) {
      console.warn('prompt editor: translation failed', error);
    } finally {
      keys.forEach((k) => this.pending.delete(k));
    }
  }

  private save(): void {
    try {
      this.storage?.setItem(TranslationCache.STORAGE_KEY, JSON.stringify(Object.fromEntries(this.answers)));
    } catch {
      // A full or disabled session storage only costs a repeated call after a reload.
    }
  }
}
