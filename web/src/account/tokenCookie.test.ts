import { afterEach, describe, expect, it } from 'vitest';
import { clearTokenCookie, readTokenCookie, TOKEN_COOKIE_MAX_AGE, writeTokenCookie } from './tokenCookie';

/** Records each assignment to `cookie`, and reads back a fixed string. */
class RecordingJar {
  writes: string[] = [];
  constructor(private current = '') {}
  get cookie() {
    return this.current;
  }
  set cookie(v: string) {
    this.writes.push(v);
  }
}

afterEach(() => {
  clearTokenCookie(document);
});

describe('token cookie T', () => {
  it('reads T among other cookies', () => {
    expect(readTokenCookie(new RecordingJar('deviceId=d1; T=abc.def; theme=dark'))).toBe('abc.def');
    expect(readTokenCookie(new RecordingJar('T=first'))).toBe('first');
    expect(readTokenCookie(new RecordingJar('XT=no; TT=no'))).toBeNull();
    expect(readTokenCookie(new RecordingJar(''))).toBeNull();
    expect(readTokenCookie(new RecordingJar('T='))).toBeNull();
    expect(readTokenCookie(new RecordingJar('T=a%2Bb%3D'))).toBe('a+b=');
    expect(readTokenCookie(new RecordingJar('T=%E0%A4%A'))).toBe('%E0%A4%A');
  });

  it('writes T with the server attributes', () => {
    const jar = new RecordingJar();
    writeTokenCookie('tok+/=', jar, false);
    expect(jar.writes).toEqual([`T=tok%2B%2F%3D; Max-Age=${TOKEN_COOKIE_MAX_AGE}; Path=/; SameSite=Lax`]);
    expect(TOKEN_COOKIE_MAX_AGE).toBe(5184000);
    writeTokenCookie('t', jar, true);
    expect(jar.writes[1]).toMatch(/; Secure$/);
  });

  it('clears T', () => {
    const jar = new RecordingJar();
    clearTokenCookie(jar, false);
    expect(jar.writes).toEqual(['T=; Max-Age=0; Path=/; SameSite=Lax']);
  });

  it('round-trips through the real document.cookie', () => {
    expect(readTokenCookie()).toBeNull();
    writeTokenCookie('session-123');
    expect(document.cookie).toContain('T=session-123');
    expect(readTokenCookie()).toBe('session-123');
    clearTokenCookie();
    expect(readTokenCookie()).toBeNull();
  });
});
