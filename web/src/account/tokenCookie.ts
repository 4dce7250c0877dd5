// The login-token cookie `T` (spec 2 §9): the server sets it on login and
// sign-up; the page reads it at start to restore its session, writes it itself
// after a login as a fallback, and clears it on logout. It is never sent as a
// credential: calls carry the token in the `token` header (see api/client.ts).

export const TOKEN_COOKIE = 'T';
/** 60 days, as the server sets it. */
export const TOKEN_COOKIE_MAX_AGE = 5_184_000;

/** The parts of `document` and `location` this module touches (tests pass fakes). */
export interface CookieJar {
  cookie: string;
}

function secureSuffix(secure: boolean): string {
  return secure ? '; Secure' : '';
}

function isHttps(): boolean {
  return typeof location !== 'undefined' && location.protocol === 'https:';
}

/** The token in cookie `T`, or null when there is none (or it is empty). */
export function readTokenCookie(jar: CookieJar = document): string | null {
  for (const part of jar.cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== TOKEN_COOKIE) continue;
    const raw = part.slice(eq + 1).trim();
    if (raw === '') return null;
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw;
    }
  }
  return null;
}

/** Writes cookie `T` with the server's attributes (Secure under HTTPS). */
export function writeTokenCookie(token: string, jar: CookieJar = document, secure: boolean = isHttps()): void {
  jar.cookie = `${TOKEN_COOKIE}=${encodeURIComponent(token)}; Max-Age=${TOKEN_COOKIE_MAX_AGE}; Path=/; SameSite=Lax${secureSuffix(secure)}`;
}

/** Deletes cookie `T`. */
export function clearTokenCookie(jar: CookieJar = document, secure: boolean = isHttps()): void {
  jar.cookie = `${TOKEN_COOKIE}=; Max-Age=0; Path=/; SameSite=Lax${secureSuffix(secure)}`;
}
