// Atoms owned by the account feature: the token, the signed-in account and
// the login popup. Written by account/session.ts and the popup; read anywhere.
import { atom } from '../state/jotai';
import type { Account, AccountInfo } from '../api/types';

/** The current login token (restored from cookie `T` at start); null when logged out. */
export const tokenAtom = atom<string | null>(null);

/**
 * The signed-in account: from the login answer, then refreshed by account info.
 * Null while logged out, and briefly after a reload until info answers.
 */
export type CurrentAccount = Pick<Account, 'id' | 'name' | 'email' | 'create_at' | 'status'> &
  Partial<Pick<Account, 'device_code'> & Pick<AccountInfo, 'settings' | 'admin' | 'ornament' | 'email_verified'>>;

export const accountAtom = atom<CurrentAccount | null>(null);

/** True once a token is held. */
export const loggedInAtom = atom((get) => get(tokenAtom) !== null);

/**
 * The login popup. `login`/`signup` are the login-types step; `final-step`
 * completes a status-3 profile with the temporary token it was given.
 */
export type LoginDialogState =
  | { open: false }
  | { open: true; step: 'login' | 'signup' }
  | { open: true; step: 'final-step'; tempToken: string; name: string }
  /** After sign-up (or from the banner): enter the code mailed to `email`. */
  | { open: true; step: 'verify'; email: string };

export const loginDialogAtom = atom<LoginDialogState>({ open: false });
