// Headers of the streams fetched outside the API client: the token, the
// content language and a device id (spec 3 §7: "headers for token, language
// and device id").
import { accountAtom, tokenAtom } from '../account/atoms';
import { contentLanguage } from '../i18n/messages';
import { localeAtom } from '../router/router';
import type { AppStore } from '../state/jotai';

const DEVICE_KEY = 'easel.deviceId';

/** The account's device code when known, else an id kept in localStorage for this browser. */
export function deviceId(store: AppStore, storage: Pick<Storage, 'getItem' | 'setItem'> | null = safeStorage()): string {
  const code = store.get(accountAtom)?.device_code;
  if (code) return code;
  const kept = storage?.getItem(DEVICE_KEY);
  if (kept) return kept;
  const made = crypto.randomUUID();
  storage?.setItem(DEVICE_KEY, made);
  return made;
}

function safeStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

export function streamHeaders(store: AppStore): Record<string, string> {
  const headers: Record<string, string> = {
    language: contentLanguage(store.get(localeAtom)),
    deviceid: deviceId(store),
  };
  const token = store.get(tokenAtom);
  if (token) headers.token = token;
  return headers;
}
