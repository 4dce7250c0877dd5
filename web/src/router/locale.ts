// Locale-prefixed routes (spec 1 §2: every route starts with the locale):
// which locales exist, how a path's first segment resolves to one, and the
// canonical path a browser should be redirected to.

/**
 * The 23 language codes of spec 3 §3 (en, ja, zh-cn, nl, ar, fr, de, id, it,
 * ko, pt, ru, es, tr, uk, vi, th, pl, ro, el, cs, fi, hi). Chinese is spelt
 * `zhCN` in paths, as the server's languages spell it; `zh-cn`, `zh_CN` and
 * every other Chinese variant (`zh`, `zh-TW`) resolve to it, as spec 3 §9
 * maps any zh variant to zhCN.
 */
export const LOCALES = [
  'en', 'ja', 'zhCN', 'nl', 'ar', 'fr', 'de', 'id', 'it', 'ko', 'pt', 'ru',
  'es', 'tr', 'uk', 'vi', 'th', 'pl', 'ro', 'el', 'cs', 'fi', 'hi',
] as const;

export type Locale = (typeof LOCALES)[number];

export const DEFAULT_LOCALE: Locale = 'en';

const byFolded = new Map<string, Locale>(LOCALES.map((l) => [l.toLowerCase(), l]));

export function isLocale(s: string): s is Locale {
  return (LOCALES as readonly string[]).includes(s);
}

/**
 * The locale a code names: exact (`zhCN`), then ignoring case and separators
 * (`zh-cn`, `ZH_CN`), then its language alone (`pt-BR` -> `pt`, any `zh-*`
 * -> `zhCN`), else `en`.
 */
export function resolveLocale(code: string | null | undefined): Locale {
  if (!code) return DEFAULT_LOCALE;
  if (isLocale(code)) return code;
  const folded = code.replace(/[-_]/g, '').toLowerCase();
  const exact = byFolded.get(folded);
  if (exact) return exact;
  const language = code.split(/[-_]/)[0]?.toLowerCase() ?? '';
  if (language === 'zh' || language.startsWith('zh')) return 'zhCN';
  return byFolded.get(language) ?? DEFAULT_LOCALE;
}

/** Does a path segment look like a locale code (known or not)? `en`, `pt-BR`, `zhCN`, `fil`. */
function looksLikeLocale(segment: string): boolean {
  return /^[a-z]{2,3}(?:[A-Z]{2}|[-_][A-Za-z]{2,4})?$/.test(segment);
}

export interface ParsedPath {
  locale: Locale;
  /** The path after the locale, always starting with '/'. */
  rest: string;
  /** Where to redirect when the path is not canonical (`/` -> `/en/`); null when it is. */
  redirect: string | null;
}

/**
 * Splits a pathname into its locale and the rest. Non-canonical paths get a
 * redirect: no locale (`/` or `/explore`) gains `/en`; an unknown or
 * differently spelt locale (`/xx/`, `/zh-cn/`) is replaced by the resolved one;
 * a bare `/en` gains its trailing slash.
 */
export function parsePath(pathname: string): ParsedPath {
  const path = pathname.startsWith('/') ? pathname : `/${pathname}`;
  const match = /^\/([^/]*)(\/.*)?$/.exec(path);
  const first = match?.[1] ?? '';
  const after = match?.[2];
  if (isLocale(first)) {
    return after === undefined
      ? { locale: first, rest: '/', redirect: `/${first}/` }
      : { locale: first, rest: after, redirect: null };
  }
  if (first !== '' && looksLikeLocale(first)) {
    const locale = resolveLocale(first);
    const rest = after ?? '/';
    return { locale, rest, redirect: `/${locale}${rest}` };
  }
  return { locale: DEFAULT_LOCALE, rest: path, redirect: `/${DEFAULT_LOCALE}${path}` };
}

/** The full path for `rest` under `locale`. */
export function localePath(locale: Locale, rest: string): string {
  return `/${locale}${rest.startsWith('/') ? rest : `/${rest}`}`;
}
