// The mall's instances on the app's API client, and the one place the page leaves for a
// checkout or portal page (tests replace `browser.go`).
import { api } from '../app/services';
import { localeAtom } from '../router/router';
import { appStore } from '../state/jotai';
import { MallApi } from './api';

export const mallApi = new MallApi(api, () => appStore.get(localeAtom));

/** Only http(s) addresses are followed: a checkout URL is never a script. */
export function isSafeUrl(url: string): boolean {
  try {
    const u = new URL(url, window.location.href);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

export const browser = {
  /** Leaves the app for `url` (the provider's hosted checkout or portal). */
  go(url: string): void {
    window.location.assign(url);
  },
};
