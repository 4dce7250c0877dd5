import { describe, expect, it, vi } from 'vitest';
import { PENDING_KEY, announceLoginThird, cancelDeletionThird, channelType, loginThird, readCallback, requestDeletionThird, startOidc } from './oidc';
import type { PendingOidc, ThirdLoginData } from './oidc';

function memoryStorage(init: Record<string, string> = {}) {
  const m = new Map(Object.entries(init));
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
    has: (k: string) => m.has(k),
  };
}

const pending: PendingOidc = { session_id: 'st-1', provider: 'acme', type: 6, purpose: 'login', back: '/en/create' };

describe('third-party sign-in', () => {
  it('maps login types to loginThird channels as spec 2 §7 says', () => {
    expect(channelType(2)).toBe(2);
    expect(channelType(3)).toBe(4);
    expect(channelType(6)).toBe(5);
    expect(channelType(1)).toBeNull();
  });

  it('remembers the attempt the server started', async () => {
    const post = vi.fn().mockResolvedValue({ url: 'https://idp.example/authorize?x=1', session_id: 'st-9', type: 3 });
    const storage = memoryStorage();
    const url = await startOidc({ post } as never, storage, 'discord', 'link', '/en/settings/security');
    expect(url).toBe('https://idp.example/authorize?x=1');
    expect(post).toHaveBeenCalledWith('/api/v1/account/oidc/start', { provider: 'discord', link: true, reauth: false });
    expect(JSON.parse(storage.getItem(PENDING_KEY) ?? '')).toEqual({
      session_id: 'st-9',
      provider: 'discord',
      type: 3,
      purpose: 'link',
      back: '/en/settings/security',
    });
  });

  it('asks for a re-authentication to request a deletion, and sends its proof', async () => {
    const post = vi.fn().mockResolvedValue({ url: 'https://idp.example/authorize?max_age=0', session_id: 'st-d', type: 6 });
    const storage = memoryStorage();
    await startOidc({ post } as never, storage, 'acme', 'delete', '/en/settings/account');
    expect(post).toHaveBeenCalledWith('/api/v1/account/oidc/start', { provider: 'acme', link: false, reauth: true });
    const read = readCallback('?code=c5&state=st-d', storage);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.pending.purpose).toBe('delete');
    const send = vi.fn().mockResolvedValue({ state: 'pending' });
    await requestDeletionThird({ post: send } as never, read.code, read.pending);
    expect(send).toHaveBeenCalledWith('/api/v1/account/delete/request', { session_id: 'st-d', token: 'c5' });
  });

  it('reads the callback once and refuses another tab’s or a missing state', () => {
    const storage = memoryStorage({ [PENDING_KEY]: JSON.stringify(pending) });
    expect(readCallback('?code=c1&state=st-1', storage)).toEqual({ ok: true, code: 'c1', pending });
    expect(storage.has(PENDING_KEY)).toBe(false);
    // Used already: nothing remembered.
    expect(readCallback('?code=c1&state=st-1', storage)).toEqual({ ok: false, message: 'OidcStateInvalid' });
    const other = memoryStorage({ [PENDING_KEY]: JSON.stringify(pending) });
    expect(readCallback('?code=c1&state=forged', other)).toEqual({ ok: false, message: 'OidcStateInvalid' });
    const denied = memoryStorage({ [PENDING_KEY]: JSON.stringify(pending) });
    expect(readCallback('?error=access_denied&state=st-1', denied)).toEqual({ ok: false, message: 'oidc.denied' });
    const broken = memoryStorage({ [PENDING_KEY]: '{not json' });
    expect(readCallback('?code=c1&state=st-1', broken)).toEqual({ ok: false, message: 'OidcStateInvalid' });
  });

  it('logs in with type, token and session_id, and announces loginThird', async () => {
    const third = { session_id: 'st-1', id_token: 'a.b.c', channel_type: 5 };
    const answer = { third } as ThirdLoginData;
    const post = vi.fn().mockResolvedValue(answer);
    await loginThird({ post } as never, 'c1', pending);
    expect(post).toHaveBeenCalledWith('/api/v1/account/login-in', { type: '6', token: 'c1', session_id: 'st-1' });
    const target = new EventTarget();
    const seen: unknown[] = [];
    target.addEventListener('easel:loginThird', (e) => seen.push((e as CustomEvent).detail));
    announceLoginThird(target, answer);
    expect(seen).toEqual([third]);
  });

  it('cancels a scheduled deletion with a sign-in attempt started for it', async () => {
    const start = vi.fn().mockResolvedValue({ url: 'https://idp.example/authorize?y=2', session_id: 'st-7', type: 6 });
    const storage = memoryStorage();
    await startOidc({ post: start } as never, storage, 'acme', 'cancel', '/en/settings/account');
    // A cancel attempt is a sign-in for the server, not a link.
    expect(start).toHaveBeenCalledWith('/api/v1/account/oidc/start', { provider: 'acme', link: false, reauth: false });
    const read = readCallback('?code=c7&state=st-7', storage);
    expect(read).toEqual({ ok: true, code: 'c7', pending: { session_id: 'st-7', provider: 'acme', type: 6, purpose: 'cancel', back: '/en/settings/account' } });
    const post = vi.fn().mockResolvedValue({ token: 't' });
    if (read.ok) await cancelDeletionThird({ post } as never, read.code, read.pending);
    expect(post).toHaveBeenCalledWith('/api/v1/account/delete/cancel', { session_id: 'st-7', token: 'c7' });
  });
});
