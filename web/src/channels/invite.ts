// The channel invite code kept in localStorage (spec 1 §4): a link
// `/{locale}/channels?invite=CODE` saves the code, and while it is stored the
// channels page asks the signed-in user to confirm joining.

/** The part of the Web Storage API used here (tests pass a Map-backed fake). */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export const INVITE_STORAGE_KEY = 'easel.channelInvite';
/** The query parameter of an invite link. */
export const INVITE_PARAM = 'invite';

const CODE_RE = /^[A-Za-z0-9_-]{1,64}$/;

export function isInviteCode(s: string): boolean {
  return CODE_RE.test(s);
}

function browserStore(): KeyValueStore | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}

export function readInvite(store: KeyValueStore | null = browserStore()): string | null {
  try {
    const v = store?.getItem(INVITE_STORAGE_KEY) ?? null;
    return v !== null && isInviteCode(v) ? v : null;
  } catch {
    return null;
  }
}

export function saveInvite(code: string, store: KeyValueStore | null = browserStore()): boolean {
  if (!isInviteCode(code)) return false;
  try {
    store?.setItem(INVITE_STORAGE_KEY, code);
    return store !== null;
  } catch {
    return false;
  }
}

export function clearInvite(store: KeyValueStore | null = browserStore()): void {
  try {
    store?.removeItem(INVITE_STORAGE_KEY);
  } catch {
    // Storage unavailable: nothing kept.
  }
}

/**
 * Takes an invite code out of a query string: returns the code (if valid) and
 * the query without it, so the page can replace its URL.
 */
export function takeInviteFromSearch(search: string): { code: string | null; search: string } {
  const params = new URLSearchParams(search);
  const raw = params.get(INVITE_PARAM);
  if (raw === null) return { code: null, search };
  params.delete(INVITE_PARAM);
  const rest = params.toString();
  return { code: isInviteCode(raw) ? raw : null, search: rest === '' ? '' : `?${rest}` };
}

/** The shareable link: `{origin}/{locale}/channels?invite=CODE`. */
export function inviteLink(origin: string, locale: string, code: string): string {
  return `${origin}/${locale}/channels?${INVITE_PARAM}=${encodeURIComponent(code)}`;
}
