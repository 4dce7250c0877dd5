import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Mock } from 'vitest';
import { ApiError } from '../api/client';
import type { AccountInfo } from '../api/types';
import { createAppStore } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import { accountAtom, loginDialogAtom, tokenAtom } from './atoms';
import { REDIRECT_PATH_KEY } from './loginFlow';
import { Session } from './session';

class Jar {
  /** What a browser would keep: name -> value. */
  values = new Map<string, string>();
  get cookie() {
    return [...this.values].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  set cookie(line: string) {
    const [pair = '', ...attrs] = line.split(';');
    const [name = '', value = ''] = pair.split('=');
    if (attrs.some((a) => a.trim() === 'Max-Age=0')) this.values.delete(name);
    else this.values.set(name, value);
  }
}

const info = (status = 1): AccountInfo => ({
  id: 'a1',
  name: 'Ada',
  email: 'ada@example.com',
  create_at: 1,
  status,
  settings: { insight: false, task_flow_version: 2, task_flow_gt: false },
  admin: false,
});

let store: AppStore;
let jar: Jar;
let storage: Map<string, string>;
let api: {
  info: Mock<(options?: { token?: string }) => Promise<AccountInfo>>;
  logout: Mock<(options?: { token?: string }) => Promise<void>>;
};
let socket: { connect: Mock<(token: string) => void>; disconnect: Mock<() => void> };
let navigate: Mock<(to: string) => void>;
let session: Session;

beforeEach(() => {
  store = createAppStore();
  jar = new Jar();
  storage = new Map();
  api = { info: vi.fn(async () => info()), logout: vi.fn(async () => undefined) };
  socket = { connect: vi.fn<(token: string) => void>(), disconnect: vi.fn<() => void>() };
  navigate = vi.fn<(to: string) => void>();
  session = new Session({
    store,
    api,
    socket,
    navigate,
    cookies: jar,
    storage: { getItem: (k) => storage.get(k) ?? null, removeItem: (k) => void storage.delete(k) },
  });
});

describe('Session', () => {
  it('restore without cookie T does nothing', async () => {
    await session.restore();
    expect(store.get(tokenAtom)).toBeNull();
    expect(socket.connect).not.toHaveBeenCalled();
    expect(api.info).not.toHaveBeenCalled();
  });

  it('restore takes the token from cookie T, connects and loads the account', async () => {
    jar.values.set('T', 'tok-1');
    await session.restore();
    expect(store.get(tokenAtom)).toBe('tok-1');
    expect(socket.connect).toHaveBeenCalledWith('tok-1');
    expect(api.info).toHaveBeenCalledWith({ token: 'tok-1' });
    expect(store.get(accountAtom)).toMatchObject({ id: 'a1', name: 'Ada', admin: false });
  });

  it('restore with a refused token ends the session and clears the cookie', async () => {
    jar.values.set('T', 'old');
    api.info.mockRejectedValueOnce(new ApiError({ code: 20000, key: 'NeedLogin', msg: 'please log in' }, 401));
    await session.restore();
    expect(store.get(tokenAtom)).toBeNull();
    expect(socket.disconnect).toHaveBeenCalled();
    expect(jar.values.has('T')).toBe(false);
  });

  it('restore keeps the session when the server is unreachable', async () => {
    jar.values.set('T', 'tok');
    api.info.mockRejectedValueOnce(new ApiError({ code: 0, key: 'NetworkError', msg: '' }, 0));
    await session.restore();
    expect(store.get(tokenAtom)).toBe('tok');
    expect(jar.values.get('T')).toBe('tok');
  });

  it('restore of a status-3 account opens the final step', async () => {
    jar.values.set('T', 'temp');
    api.info.mockResolvedValueOnce(info(3));
    await session.restore();
    expect(store.get(tokenAtom)).toBeNull();
    expect(store.get(loginDialogAtom)).toEqual({ open: true, step: 'final-step', tempToken: 'temp', name: 'Ada' });
  });

  it('completeLogin stores token and account, writes the cookie, connects, closes the popup and redirects', () => {
    storage.set(REDIRECT_PATH_KEY, '/en/create');
    store.set(loginDialogAtom, { open: true, step: 'login' });
    session.completeLogin('tok-2', { id: 'a1', name: 'Ada', email: 'e', create_at: 1, status: 1, device_code: 'd' });
    expect(store.get(tokenAtom)).toBe('tok-2');
    expect(store.get(accountAtom)?.name).toBe('Ada');
    expect(jar.values.get('T')).toBe('tok-2');
    expect(socket.connect).toHaveBeenCalledWith('tok-2');
    expect(store.get(loginDialogAtom)).toEqual({ open: false });
    expect(navigate).toHaveBeenCalledWith('/en/create');
    expect(storage.has(REDIRECT_PATH_KEY)).toBe(false);
  });

  it('completeLogin stays put when the redirect path is the root', () => {
    storage.set(REDIRECT_PATH_KEY, '/');
    session.completeLogin('t', { id: 'a1', name: 'Ada', email: 'e', create_at: 1, status: 1, device_code: 'd' });
    expect(navigate).not.toHaveBeenCalled();
  });

  it('logout clears everything and tells the server with the old token', async () => {
    jar.values.set('T', 'tok');
    await session.restore();
    await session.logout();
    expect(store.get(tokenAtom)).toBeNull();
    expect(store.get(accountAtom)).toBeNull();
    expect(jar.values.has('T')).toBe(false);
    expect(socket.disconnect).toHaveBeenCalled();
    expect(api.logout).toHaveBeenCalledWith({ token: 'tok' });
  });

  it('logout succeeds locally when the server call fails', async () => {
    store.set(tokenAtom, 'tok');
    api.logout.mockRejectedValueOnce(new Error('offline'));
    await expect(session.logout()).resolves.toBeUndefined();
    expect(store.get(tokenAtom)).toBeNull();
  });
});
