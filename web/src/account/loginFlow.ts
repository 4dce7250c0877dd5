// What a login answer means (spec 2 §4 "Login account status"), as a pure
// function so the popup and the tests share one reading of it.
import { AccountStatus } from '../api/types';
import type { Account, LoginData } from '../api/types';
import type { MessageKey } from '../i18n/messages';

export type LoginOutcome =
  /** Status 1: keep the token and account, close the popup, redirect. */
  | { kind: 'logged-in'; token: string; account: Account }
  /** Status 3: the token is temporary; move to the final step to complete the profile. */
  | { kind: 'final-step'; tempToken: string; account: Account }
  /** Status 2 (or anything unknown): show the message, log nobody in. */
  | { kind: 'refused'; message: MessageKey };

export function loginOutcome(data: LoginData): LoginOutcome {
  switch (data.account.status) {
    case AccountStatus.Normal:
      return { kind: 'logged-in', token: data.token, account: data.account };
    case AccountStatus.Incomplete:
      return { kind: 'final-step', tempToken: data.token, account: data.account };
    case AccountStatus.Disabled:
      return { kind: 'refused', message: 'AccountDisabled' };
    default:
      return { kind: 'refused', message: 'LoginFailed' };
  }
}

/** sessionStorage key of the path to return to after logging in. */
export const REDIRECT_PATH_KEY = 'redirectPath';

/**
 * Takes (and forgets) the stored redirect path; null when there is none or
 * it is empty or the root, in which case the user stays where they are.
 * Only same-site paths are followed.
 */
export function takeRedirectPath(storage: Pick<Storage, 'getItem' | 'removeItem'>): string | null {
  const path = storage.getItem(REDIRECT_PATH_KEY);
  storage.removeItem(REDIRECT_PATH_KEY);
  if (path === null) return null;
  const trimmed = path.trim();
  if (trimmed === '' || trimmed === '/') return null;
  // "//host" or "/\host" would leave the site.
  if (!trimmed.startsWith('/') || trimmed.startsWith('//') || trimmed.startsWith('/\\')) return null;
  return trimmed;
}
