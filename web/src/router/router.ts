// A tiny history router: the current location lives in an atom, `navigate`
// pushes a new entry, and `startRouter` keeps the atom in step with the back
// and forward buttons and applies the canonical-locale redirect.
//
// Each entry the app makes carries its position in `history.state`
// (`{easelIndex}`), and the router remembers the path of every position it
// has seen, so closing the page-mode generator can tell whether there is
// history to go back to and whether the previous page was the home page.
import { useCallback } from 'react';
import { atom, useAtomValue } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import { localePath, parsePath } from './locale';
import type { Locale, ParsedPath } from './locale';
import { closeGeneratorAction, landingRedirect, parseGeneratorRoute } from './routes';
import type { CloseAction, GeneratorRoute } from './routes';
import { appStore } from '../state/jotai';

export interface RouteLocation {
  pathname: string;
  search: string;
  hash: string;
}

function currentLocation(): RouteLocation {
  return { pathname: window.location.pathname, search: window.location.search, hash: window.location.hash };
}

export const locationAtom = atom<RouteLocation>({ pathname: '/', search: '', hash: '' });

/** The locale and the path after it, from the current location. */
export const routeAtom = atom<ParsedPath>((get) => parsePath(get(locationAtom).pathname));

export const localeAtom = atom((get) => get(routeAtom).locale);

/** The generator route (`/create`, `/studio`, `/create/{generateType}` with `id`, `model_ver_no`), or null on other pages. */
export const generatorRouteAtom = atom<GeneratorRoute | null>((get) =>
  parseGeneratorRoute(get(routeAtom).rest, get(locationAtom).search),
);

/** The app's own view of the history: the current entry's position and the paths seen at each position. */
export interface HistoryTrail {
  index: number;
  /** Pathnames by position; positions not seen in this page session (before a reload) are missing. */
  paths: ReadonlyArray<string | undefined>;
}

export const historyTrailAtom = atom<HistoryTrail>({ index: 0, paths: [] });

interface EntryState {
  easelIndex: number;
}

function entryIndex(state: unknown): number | null {
  if (typeof state !== 'object' || state === null) return null;
  const index = (state as Partial<EntryState>).easelIndex;
  return typeof index === 'number' && Number.isInteger(index) && index >= 0 ? index : null;
}

function recordEntry(store: AppStore, index: number): void {
  const trail = store.get(historyTrailAtom);
  const paths = [...trail.paths];
  paths[index] = window.location.pathname;
  store.set(historyTrailAtom, { index, paths });
}

/** Replaces the current entry with the canonical path, if it is not one already, and publishes the location. */
function canonicalize(store: AppStore): void {
  const loc = currentLocation();
  const { redirect } = parsePath(loc.pathname);
  if (redirect !== null) window.history.replaceState(window.history.state, '', `${redirect}${loc.search}${loc.hash}`);
  store.set(locationAtom, currentLocation());
}

/** Goes to `to` (a same-site path with optional query), adding a history entry (or replacing the current one). */
export function navigate(store: AppStore, to: string, options: { replace?: boolean } = {}): void {
  const current = store.get(historyTrailAtom).index;
  if (options.replace) {
    window.history.replaceState({ easelIndex: current } satisfies EntryState, '', to);
    canonicalize(store);
    recordEntry(store, current);
  } else {
    const next = current + 1;
    window.history.pushState({ easelIndex: next } satisfies EntryState, '', to);
    // A new entry drops the forward entries, as the browser does.
    store.set(historyTrailAtom, { index: current, paths: store.get(historyTrailAtom).paths.slice(0, next) });
    canonicalize(store);
    recordEntry(store, next);
  }
}

/** Applies the initial redirect and follows back/forward; returns a stop function. */
export function startRouter(store: AppStore): () => void {
  // A reload keeps history.state, so the position survives it; a fresh visit starts at 0.
  const index = entryIndex(window.history.state) ?? 0;
  const state: unknown = window.history.state;
  const kept = typeof state === 'object' && state !== null ? state : {};
  window.history.replaceState({ ...kept, easelIndex: index }, '');
  canonicalize(store);
  recordEntry(store, index);
  const onPop = (e: PopStateEvent) => {
    canonicalize(store);
    recordEntry(store, entryIndex(e.state) ?? 0);
  };
  window.addEventListener('popstate', onPop);
  return () => window.removeEventListener('popstate', onPop);
}

/** What closing the page-mode generator would do now (see `closeGeneratorAction`). */
export function closeGeneratorTarget(store: AppStore): CloseAction {
  const { index, paths } = store.get(historyTrailAtom);
  return closeGeneratorAction({ index, previousPath: paths[index - 1] ?? null }, store.get(localeAtom));
}

/**
 * Closes the page-mode generator (spec 1 §2): goes back in history, or to the
 * home page (replacing the generator's entry) when there is no history or the
 * previous page was the home page.
 */
export function closeGenerator(store: AppStore = appStore): void {
  const action = closeGeneratorTarget(store);
  if (action.kind === 'back') window.history.back();
  else navigate(store, action.to, { replace: true });
}

/** `closeGenerator` for components: `const close = useCloseGenerator(); <button onClick={close}>`. */
export function useCloseGenerator(store: AppStore = appStore): () => void {
  return useCallback(() => closeGenerator(store), [store]);
}

/** The landing page's redirect target for the current visitor (home when logged in), or null. */
export function useLandingRedirect(loggedIn: boolean): string | null {
  const locale: Locale = useAtomValue(localeAtom);
  return landingRedirect(loggedIn, locale);
}

/** The home path of the current locale. */
export function useHomePath(): string {
  return localePath(useAtomValue(localeAtom), '/');
}
