// The app's routes after the locale (spec 1 §2) as pure functions: which
// page a path shows, the generator's route (`/create`, `/studio`,
// `/create/{generateType}` with query `id` and `model_ver_no`), the landing
// redirect, and where closing the page-mode generator goes.

import { localePath, parsePath } from './locale';
import type { Locale } from './locale';

/** The `{generateType}` route values of spec 1 §2. */
export const GENERATE_TYPES = ['image', 'effect', 'video', 'ai-app', 'audio', 'element'] as const;
export type GenerateType = (typeof GENERATE_TYPES)[number];

/** The generator tab each `{generateType}` opens (spec 1 §2). */
export const GENERATE_TYPE_TABS = {
  image: 'generateImage',
  effect: 'effect',
  video: 'generateVideo',
  'ai-app': 'app',
  audio: 'generateAudio',
  element: 'multiImage',
} as const satisfies Record<GenerateType, string>;

/** A generator tab that a `{generateType}` route opens. */
export type GenerateTab = (typeof GENERATE_TYPE_TABS)[GenerateType];

export function isGenerateType(value: string): value is GenerateType {
  return (GENERATE_TYPES as readonly string[]).includes(value);
}

/** The tab for a `{generateType}` value, or null for an unknown one (the route is then not a generator route). */
export function generateTabOf(generateType: string): GenerateTab | null {
  return isGenerateType(generateType) ? GENERATE_TYPE_TABS[generateType] : null;
}

/** The `{generateType}` that opens a tab (the reverse mapping), or null. */
export function generateTypeOfTab(tab: string): GenerateType | null {
  return GENERATE_TYPES.find((type) => GENERATE_TYPE_TABS[type] === tab) ?? null;
}

/** What the generator route says. */
export interface GeneratorRoute {
  /** `modal`: `/create` (the generation modal route); `studio`: `/studio`; `page`: `/create/{generateType}`. */
  mode: 'modal' | 'studio' | 'page';
  generateType: GenerateType | null;
  tab: GenerateTab | null;
  /** Query `id` (a task, artwork or model id to open), null when absent or blank. */
  id: string | null;
  /** Query `model_ver_no` (a model version to select), null when absent or blank. */
  modelVerNo: string | null;
}

function param(query: URLSearchParams, name: string): string | null {
  const value = query.get(name)?.trim() ?? '';
  return value === '' ? null : value;
}

/**
 * The generator route for a path after the locale (`/create`, `/studio`,
 * `/create/video`, with or without a trailing slash) and its query string, or
 * null when the path is not one (including an unknown `{generateType}`).
 */
export function parseGeneratorRoute(rest: string, search: string = ''): GeneratorRoute | null {
  const path = rest.length > 1 && rest.endsWith('/') ? rest.slice(0, -1) : rest;
  const query = new URLSearchParams(search);
  const common = { id: param(query, 'id'), modelVerNo: param(query, 'model_ver_no') };
  if (path === '/create') return { mode: 'modal', generateType: null, tab: null, ...common };
  if (path === '/studio') return { mode: 'studio', generateType: null, tab: null, ...common };
  const match = /^\/create\/([^/]+)$/.exec(path);
  if (match === null) return null;
  const generateType = decodeURIComponent(match[1] ?? '');
  if (!isGenerateType(generateType)) return null;
  return { mode: 'page', generateType, tab: GENERATE_TYPE_TABS[generateType], ...common };
}

/** The path of a generator route (after the locale, with its query). */
export function generatorPath(route: Pick<GeneratorRoute, 'mode' | 'generateType' | 'id' | 'modelVerNo'>): string {
  const base = route.mode === 'studio' ? '/studio' : route.mode === 'page' && route.generateType ? `/create/${route.generateType}` : '/create';
  const query = new URLSearchParams();
  if (route.id) query.set('id', route.id);
  if (route.modelVerNo) query.set('model_ver_no', route.modelVerNo);
  const qs = query.toString();
  return qs === '' ? base : `${base}?${qs}`;
}

/** The landing page's path after the locale. */
export const LANDING_PATH = '/landing';

/** Where the landing page sends a visitor: home when logged in (spec 1 §2), else nowhere. */
export function landingRedirect(loggedIn: boolean, locale: Locale): string | null {
  return loggedIn ? localePath(locale, '/') : null;
}

/** What closing the page-mode generator does. */
export type CloseAction = { kind: 'back' } | { kind: 'navigate'; to: string };

/**
 * Closing the page-mode generator (spec 1 §2): back in history, or to the
 * home page when there is no history (this is the first entry of the app's
 * session) or the previous entry was the home page. `previousPath` is the
 * previous entry's pathname, or null when unknown (an entry from before a
 * reload): then going back is safe, since history exists.
 */
export function closeGeneratorAction(history: { index: number; previousPath: string | null }, locale: Locale): CloseAction {
  const home = localePath(locale, '/');
  if (history.index <= 0) return { kind: 'navigate', to: home };
  if (history.previousPath !== null && isHomePath(history.previousPath)) return { kind: 'navigate', to: home };
  return { kind: 'back' };
}

/** True for the home page in any locale spelling (`/`, `/en`, `/en/`, `/zhCN/`). */
export function isHomePath(pathname: string): boolean {
  const withoutQuery = pathname.split(/[?#]/)[0] ?? '';
  const rest = parsePath(withoutQuery).rest;
  return rest === '/' || rest === '';
}
