// A fake OpenID Connect provider for the browser test, following OpenID
// Connect Core 1.0, Discovery 1.0 and RFC 7636: the discovery document, a
// JWKS with a fresh RSA key, `/authorize` (the user "consents" at once: a
// 302 back to the redirect URI with code and state), and `/token` checking
// the client's credentials, the code's single use, the redirect URI and the
// PKCE verifier, answering RS256-signed ID tokens (node:crypto).
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import http from 'node:http';

const b64url = (buf) => Buffer.from(buf).toString('base64url');

/**
 * @param {{clientId: string, clientSecret: string, user: {sub: string, email: string, name: string}}} options
 * @returns {Promise<{issuer: string, grants: () => number, close: () => Promise<void>}>}
 */
export async function startFakeOidc({ clientId, clientSecret, user }) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'e2e-1', alg: 'RS256', use: 'sig' };
  /** code -> {redirectUri, challenge, nonce} */
  const codes = new Map();
  let issued = 0;
  let issuer = '';

  function json(res, status, body) {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  }

  // With `max_age` (a re-authentication) the ID token says when the person
  // signed in (OIDC Core 3.1.2.1): here, just now.
  function idToken(nonce, maxAge) {
    const now = Math.floor(Date.now() / 1000);
    const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: 'e2e-1' }));
    const claims = b64url(
      JSON.stringify({
        iss: issuer, sub: user.sub, aud: clientId, iat: now, exp: now + 300, nonce,
        email: user.email, email_verified: true, name: user.name,
        ...(maxAge === null ? {} : { auth_time: now }),
      }),
    );
    const sig = sign('RSA-SHA256', Buffer.from(`${header}.${claims}`), privateKey);
    return `${header}.${claims}.${b64url(sig)}`;
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (req.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      });
    }
    if (req.method === 'GET' && url.pathname === '/jwks') return json(res, 200, { keys: [jwk] });
    if (req.method === 'GET' && url.pathname === '/authorize') {
      const q = url.searchParams;
      if (
        q.get('response_type') !== 'code' || q.get('client_id') !== clientId ||
        q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge') ||
        !q.get('state') || !q.get('nonce') || !(q.get('scope') ?? '').split(' ').includes('openid')
      ) {
        res.writeHead(400).end('bad authorization request');
        return;
      }
      const code = b64url(randomBytes(16));
      codes.set(code, { redirectUri: q.get('redirect_uri'), challenge: q.get('code_challenge'), nonce: q.get('nonce'), maxAge: q.get('max_age') });
      const to = new URL(q.get('redirect_uri') ?? '');
      to.searchParams.set('code', code);
      to.searchParams.set('state', q.get('state') ?? '');
      res.writeHead(302, { location: to.href }).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      let body = '';
      req.setEncoding('utf8').on('data', (d) => (body += d));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        const basic = (req.headers.authorization ?? '').replace(/^Basic /, '');
        if (Buffer.from(basic, 'base64').toString() !== `${clientId}:${clientSecret}`) {
          return json(res, 401, { error: 'invalid_client' });
        }
        const grant = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        if (!grant || form.get('grant_type') !== 'authorization_code' || form.get('redirect_uri') !== grant.redirectUri) {
          return json(res, 400, { error: 'invalid_grant' });
        }
        const challenge = b64url(createHash('sha256').update(form.get('code_verifier') ?? '').digest());
        if (challenge !== grant.challenge) return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE' });
        issued += 1;
        return json(res, 200, {
          access_token: b64url(randomBytes(16)), token_type: 'Bearer', expires_in: 3600, id_token: idToken(grant.nonce, grant.maxAge),
        });
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  issuer = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    issuer,
    grants: () => issued,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
