// Session actions: restoring the token from cookie `T` at start, finishing a
// login, refreshing the account, logging out. Plain code over the store, the
// API client and the socket, so components stay small and tests can wire
// fakes in.
import { isApiError } from '../api/client';
import type { ApiClient } from '../api/client';
import { AccountStatus } from '../api/types';
import type { Account } from '../api/types';
import type { SocketClient } from '../socket/socket';
import type { AppStore } from '../state/jotai';
import { accountAtom, loginDialogAtom, tokenAtom } from './atoms';
import { accountNsfwModeAtom, isNsfwMode } from '../square/atoms';
import { takeRedirectPath } from './loginFlow';
import { clearTokenCookie, readTokenCookie, writeTokenCookie } from './tokenCookie';
import type { CookieJar } from './tokenCookie';

/** Code of NeedLogin: the token is unknown, expired or logged out. */
const NEED_LOGIN = 20000;

export interface SessionDeps {
  store: AppStore;
  api: Pick<ApiClient, 'info' | 'logout'>;
  socket: Pick<SocketClient, 'connect' | 'disconnect'>;
  /** Go to a same-site path (the router's navigate). */
  navigate: (to: string) => void;
  cookies?: CookieJar;
  storage?: Pick<Storage, 'getItem' | 'removeItem'>;
}

export class Session {
  private readonly deps: SessionDeps;

  constructor(deps: SessionDeps) {
    this.deps = deps;
  }

  private get cookies(): CookieJar {
    return this.deps.cookies ?? document;
  }

  /** At start: take the token from cookie `T`, open the socket, load the account. */
  async restore(): Promise<void> {
    const token = readTokenCookie(this.cookies);
    if (token === null) return;
    this.deps.store.set(tokenAtom, token);
    this.deps.socket.connect(token);
    await this.refreshAccount();
  }

  /**
   * Reloads the account with the current token. A refused token ends the
   * session; a status-3 account is sent to the popup's final step; a network
   * failure keeps the session (the socket keeps retrying).
   */
  async refreshAccount(): Promise<void> {
    const { store, api } = this.deps;
    const token = store.get(tokenAtom);
    if (token === null) return;
    try {
      const info = await api.info({ token });
      if (store.get(tokenAtom) !== token) return; // logged out or switched meanwhile
      if (info.status === AccountStatus.Incomplete) {
        this.endLocally({ keepCookie: true });
        store.set(loginDialogAtom, { open: true, step: 'final-step', tempToken: token, name: info.name });
        return;
      }
      if (info.status === AccountStatus.Disabled) {
        this.endLocally();
        return;
      }
      store.set(accountAtom, {
        id: info.id,
        name: info.name,
        email: info.email,
        create_at: info.create_at,
        status: info.status,
        settings: info.settings,
        admin: info.admin,
        ornament: info.ornament ?? null,
        email_verified: info.email_verified ?? false,
      });
      // The account's NSFW mode follows it to every browser.
      store.set(accountNsfwModeAtom, isNsfwMode(info.nsfw_mode) ? info.nsfw_mode : 'blur');
    } catch (e) {
      if (isApiError(e) && e.code === NEED_LOGIN && store.get(tokenAtom) === token) this.endLocally();
    }
  }

  /** A status-1 login: keep token and account, connect, close the popup, redirect. */
  completeLogin(token: string, account: Account): void {
    const { store } = this.deps;
    store.set(tokenAtom, token);
    store.set(accountAtom, {
      id: account.id,
      name: account.name,
      email: account.email,
      create_at: account.create_at,
      status: account.status,
      device_code: account.device_code,
    });
    // The server sets the cookie too; writing it here keeps a reload logged in
    // even behind a proxy that drops Set-Cookie.
    writeTokenCookie(token, this.cookies);
    this.deps.socket.connect(token);
    store.set(loginDialogAtom, { open: false });
    const storage = this.deps.storage ?? window.sessionStorage;
    const redirect = takeRedirectPath(storage);
    if (redirect !== null) this.deps.navigate(redirect);
    void this.refreshAccount();
  }

  /** Ends the session here and on the server. */
  async logout(): Promise<void> {
    const token = this.deps.store.get(tokenAtom);
    this.endLocally();
    if (token === null) return;
    try {
      await this.deps.api.logout({ token });
    } catch {
      // The token is gone from this page either way; an unreachable server
      // will expire it.
    }
  }

  /** Forgets the session on this page only (logout, or the server refused the token). */
  endLocally(options: { keepCookie?: boolean } = {}): void {
    const { store } = this.deps;
    this.deps.socket.disconnect();
    store.set(tokenAtom, null);
    store.set(accountAtom, null);
    store.set(accountNsfwModeAtom, null);
    if (!options.keepCookie) clearTokenCookie(this.cookies);
  }
}
