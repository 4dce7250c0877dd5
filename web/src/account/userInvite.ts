// The user invite code kept in localStorage (spec 2 §9): a link carrying
// `?invite=CODE` (or `invite_code`, `invitation_code`, `invite_user_code`)
// saves the code, sign-up sends it as `invite_user_code`, and the server's
// 40002 InviteCodeError clears it (spec 2 §8). The channels page's
// `?invite=` is a channel invite (channels/invite.ts) and is left alone there.
import type { KeyValueStore } from '../channels/invite';

export const USER_INVITE_KEY = 'easel.userInvite';
/** Query parameters that carry a user invite code, first match wins. */
export const USER_INVITE_PARAMS = ['invite_user_code', 'invitation_code', 'invite_code', 'invite'] as const;

const CODE_RE = /^[A-Za-z0-9]{1,32}$/;

function browserStore(): KeyValueStore | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}

export function readUserInvite(store: KeyValueStore | null = browserStore()): string | null {
  try {
    const v = store?.getItem(USER_INVITE_KEY) ?? null;
    return v !== null && CODE_RE.test(v) ? v : null;
  } catch {
    return null;
  }
}

export function saveUserInvite(code: string, store: KeyValueStore | null = browserStore()): boolean {
  if (!CODE_RE.test(code)) return false;
  try {
    store?.setItem(USER_INVITE_KEY, code);
    return store !== null;
  } catch {
    return false;
  }
}

export function clearUserInvite(store: KeyValueStore | null = browserStore()): void {
  try {
    store?.removeItem(USER_INVITE_KEY);
  } catch {
    // Storage unavailable: nothing kept.
  }
}

/** Whether `?invite=` on this path is a channel invite rather than a user's. */
function isChannelsPath(pathname: string): boolean {
  return /^\/[^/]+\/channels(\/|$)/.test(pathname) || /^\/channels(\/|$)/.test(pathname);
}

/**
 * Takes a user invite code out of a query string: the code (if valid) and the
 * query without the invite parameters, so the page can replace its URL.
 */
export function takeUserInviteFromSearch(search: string, pathname: string): { code: string | null; search: string } {
  const params = new URLSearchParams(search);
  const names = USER_INVITE_PARAMS.filter((p) => !(p === 'invite' && isChannelsPath(pathname)));
  let code: string | null = null;
  let found = false;
  for (const name of names) {
    const raw = params.get(name);
    if (raw === null) continue;
    found = true;
    params.delete(name);
    const v = raw.trim();
    if (code === null && CODE_RE.test(v)) code = v;
  }
  if (!found) return { code: null, search };
  const rest = params.toString();
  return { code, search: rest === '' ? '' : `?${rest}` };
}

/**
 * Run once at start-up: keeps an invite code from the address bar and takes
 * it out of the visible URL.
 */
export function captureUserInvite(loc: Pick<Location, 'pathname' | 'search' | 'hash'> = window.location): void {
  const { code, search } = takeUserInviteFromSearch(loc.search, loc.pathname);
  if (search === loc.search) return;
  if (code !== null) saveUserInvite(code);
  try {
    window.history.replaceState(window.history.state, '', `${loc.pathname}${search}${loc.hash}`);
  } catch {
    // No history API: the URL keeps the parameter, which is harmless.
  }
}
