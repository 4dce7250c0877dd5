// After a sign-in, the app follows the language stored in the account's
// settings: the same page (path after the locale, query, hash) under the
// stored locale, replacing the history entry. No stored language, or the
// page already in it: nothing happens.
import { locationAtom, navigate } from '../router/router';
import type { RouteLocation } from '../router/router';
import { isLocale, localePath, parsePath } from '../router/locale';
import { security } from '../settings/useSecurityApi';
import type { AppStore } from '../state/jotai';

/** Where to go so the page shows in `stored`; null when no change is needed. */
export function storedLocalePath(location: RouteLocation, stored: string): string | null {
  if (!isLocale(stored)) return null;
  const { locale, rest } = parsePath(location.pathname);
  if (locale === stored) return null;
  return `${localePath(stored, rest)}${location.search}${location.hash}`;
}

/** Reads the account's stored language and switches the app to it. */
export async function switchToStoredLocale(store: AppStore): Promise<void> {
  let language: string;
  try {
    language = (await security.prefs()).language;
  } catch {
    return; // the page stays as it is
  }
  const to = storedLocalePath(store.get(locationAtom), language);
  if (to !== null) navigate(store, to, { replace: true });
}
