// A tiny history router: the current location lives in an atom, `navigate`
// pushes a new entry, and `startRouter` keeps the atom in step with the back
// and forward buttons and applies the canonical-locale redirect.
import { atom } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import { parsePath } from './locale';
import type { ParsedPath } from './locale';

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

/** Replaces the current entry with the canonical path, if it is not one already. */
function canonicalize(store: AppStore): void {
  const loc = currentLocation();
  const { redirect } = parsePath(loc.pathname);
  if (redirect !== null) window.history.replaceState(null, '', `${redirect}${loc.search}${loc.hash}`);
  store.set(locationAtom, currentLocation());
}

/** Goes to `to` (a same-site path with optional query), adding a history entry. */
export function navigate(store: AppStore, to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  canonicalize(store);
}

/** Applies the initial redirect and follows back/forward; returns a stop function. */
export function startRouter(store: AppStore): () => void {
  canonicalize(store);
  const onPop = () => canonicalize(store);
  window.addEventListener('popstate', onPop);
  return () => window.removeEventListener('popstate', onPop);
}
