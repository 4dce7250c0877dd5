// Browser tests of the accounts' last gaps (issue 21) against the real
// backend in real Chromium: phone sign-in through a fake Twilio Messages API
// (then the final step), the visitor guide's steps, linking and unlinking a
// provider from the security settings (fake OpenID provider), and deleting
// an account: request, cancel, request again, and gone after the sweep.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { apiCall, apiPost, signUp } from './helpers.mjs';
import { startFakeOidc } from './oidcFake.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(WEB_DIR, 'test-results');
const TIMEOUT_MS = 15_000;
const PASSWORD = 'correct horse battery';
const ADMIN = 'operator@example.com';
const SID = 'AC00000000000000000000000000000e2e';
const SMS_TOKEN = 'e2e-sms-token';

/**
 * A fake of Twilio's Messages API (`POST /2010-04-01/Accounts/{sid}/Messages.json`,
 * basic auth, form body To/From/Body; 201 with the message's sid), keeping the
 * texts it received. Wrong credentials answer 401 with Twilio's error body.
 */
async function startFakeTwilio() {
  const sent = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const expected = `Basic ${Buffer.from(`${SID}:${SMS_TOKEN}`).toString('base64')}`;
      res.setHeader('Content-Type', 'application/json');
      if (req.method !== 'POST' || req.url !== `/2010-04-01/Accounts/${SID}/Messages.json`) {
        res.writeHead(404).end(JSON.stringify({ code: 20404, message: 'not found', status: 404 }));
        return;
      }
      if (req.headers.authorization !== expected) {
        res.writeHead(401).end(JSON.stringify({ code: 20003, message: 'Authenticate', status: 401 }));
        return;
      }
      const form = new URLSearchParams(body);
      sent.push({ to: form.get('To'), body: form.get('Body') ?? '' });
      res.writeHead(201).end(JSON.stringify({ sid: `SM${sent.length}`, status: 'queued' }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    codeFor: (to) => [...sent].reverse().find((m) => m.to === to)?.body.match(/\b\d{6}\b/)?.[0] ?? null,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

let backend;
let oidc;
let twilio;
let browser;
const pageProblems = [];

async function newPage(token) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  if (token) await context.addCookies([{ name: 'T', value: token, url: backend.url }]);
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT_MS);
  page.on('pageerror', (e) => pageProblems.push(`pageerror: ${e.message}`));
  return page;
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(SHOTS, `e2e-accounts-${name}.png`), fullPage: true });
}

describe('accounts in the browser', { timeout: 240_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    twilio = await startFakeTwilio();
    oidc = await startFakeOidc({
      clientId: 'easel-e2e',
      clientSecret: 'e2e-secret',
      user: { sub: 'grace-1906', email: `grace.${Date.now()}@acme.example`, name: 'Grace' },
    });
    backend = await startBackend({
      env: {
        EASEL_ADMINS: ADMIN,
        EASEL_SMS_URL: twilio.url,
        EASEL_SMS_ACCOUNT_SID: SID,
        EASEL_SMS_AUTH_TOKEN: SMS_TOKEN,
        EASEL_SMS_FROM: '+15005550006',
        EASEL_SMS_RESEND_SECS: '0',
        EASEL_VISITOR_GUIDE: JSON.stringify([
          { id: 'welcome', title: 'Welcome to Easel', body: 'Pictures, stories and characters.' },
          { id: 'create', title: 'Make something', body: 'Open the generator to start.' },
        ]),
        EASEL_OIDC_PROVIDERS: 'acme',
        EASEL_OIDC_ACME_ISSUER: oidc.issuer,
        EASEL_OIDC_ACME_CLIENT_ID: 'easel-e2e',
        EASEL_OIDC_ACME_CLIENT_SECRET: 'e2e-secret',
        EASEL_OIDC_ACME_LABEL: 'Acme ID',
        // A fixed grace of zero days; the test runs the sweep itself.
        EASEL_ACCOUNT_DELETION_GRACE_DAYS: '0',
        EASEL_ACCOUNT_DELETION_SWEEP_SECS: '100000',
      },
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'],
    });
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await backend?.stop();
      await oidc?.close();
      await twilio?.close();
    }
    assert.deepEqual(pageProblems, []);
  });

  test('a visitor reads the guide step by step, then skips it for good', async () => {
    const page = await newPage();
    await page.goto(new URL('/en/', backend.url).href);
    const guide = page.getByTestId('visitor-guide');
    await guide.getByText('Welcome to Easel').waitFor();
    await shot(page, '01-guide-first-step');
    await guide.getByRole('button', { name: 'Got it' }).click();
    await guide.getByText('Make something').waitFor();
    await guide.getByRole('button', { name: 'Skip the guide' }).click();
    await guide.waitFor({ state: 'hidden' });
    // Seen for this device: not shown again.
    await page.reload();
    await page.getByRole('banner').getByRole('button', { name: 'Log in' }).waitFor();
    await page.waitForTimeout(500);
    assert.equal(await page.getByTestId('visitor-guide').count(), 0);
    await page.context().close();
  });

  test('a phone number signs in with the texted code and completes the final step', async () => {
    const page = await newPage();
    const phone = '+447911123488';
    await page.goto(new URL('/en/', backend.url).href);
    await page.getByRole('banner').getByRole('button', { name: 'Log in' }).click();
    const dialog = page.getByRole('dialog', { name: 'Log in to Easel' });
    await dialog.getByText('Phone', { exact: true }).click();
    await dialog.getByLabel('Phone number').fill('+44 7911 123488');
    await dialog.getByRole('button', { name: 'Send code' }).click();
    await dialog.getByText(`We sent a code to`).waitFor();
    const code = twilio.codeFor(phone);
    assert.match(code ?? '', /^\d{6}$/, 'the fake received the code, to the E.164 number');
    await dialog.getByLabel('Code from the text message').fill(code);
    await shot(page, '02-phone-code');
    await dialog.locator('.phone-login').getByRole('button', { name: 'Log in' }).click();
    const finalStep = page.getByRole('dialog', { name: 'One last step' });
    await finalStep.waitFor();
    await finalStep.getByLabel('Display name').fill('Phoebe Phone');
    await finalStep.getByRole('button', { name: 'Continue' }).click();
    await page.getByTestId('account-name').filter({ hasText: 'Phoebe Phone' }).waitFor();
    await shot(page, '03-phone-signed-in');
    await page.context().close();
  });

  test('a provider is linked from the security settings, then unlinked', async () => {
    const me = await signUp(backend.url, { prefix: 'linker', password: PASSWORD, name: 'Linker' });
    const page = await newPage(me.token);
    await page.goto(new URL('/en/settings/security', backend.url).href);
    const linked = page.getByTestId('linked-accounts');
    await linked.getByText('No provider is linked.').waitFor();
    const back = page.waitForURL(/\/oidc\/callback\?/, { timeout: TIMEOUT_MS });
    await linked.getByRole('button', { name: 'Link Acme ID' }).click();
    await back;
    await page.waitForURL(/\/en\/settings\/security/, { timeout: TIMEOUT_MS });
    const item = page.getByTestId('linked-accounts').locator('li[data-provider="acme"]');
    await item.waitFor();
    await shot(page, '04-provider-linked');
    const list = await apiPost(backend.url, '/api/v1/account/oidc/linked', {}, me.token);
    assert.deepEqual(
      list.items.map((l) => l.provider),
      ['acme'],
    );
    await item.getByRole('button', { name: 'Unlink' }).click();
    await page.getByTestId('linked-accounts').getByText('No provider is linked.').waitFor();
    const after = await apiPost(backend.url, '/api/v1/account/oidc/linked', {}, me.token);
    assert.deepEqual(after.items, []);
    await page.context().close();
  });

  test('an account asks for deletion, cancels, asks again, and is gone after the sweep', async () => {
    const op = await apiPost(backend.url, '/api/v1/account/sign-up', { email: ADMIN, password: PASSWORD, name: 'Operator' });
    const me = await signUp(backend.url, { prefix: 'leaver', password: PASSWORD, name: 'Leaver' });
    const email = me.account.email;
    const page = await newPage(me.token);
    await page.goto(new URL('/en/settings/account', backend.url).href);
    const ask = async () => {
      await page.getByTestId('delete-account-start').click();
      await page.getByTestId('delete-account-password').fill(PASSWORD);
      await page.getByTestId('delete-account-confirm').click();
      await page.getByTestId('delete-account-scheduled').waitFor();
    };
    await ask();
    await shot(page, '05-deletion-scheduled');
    // Signing in meanwhile answers 20010.
    const refused = await apiCall(backend.url, '/api/v1/account/login-in', { type: 'email', email, password: PASSWORD });
    assert.equal(refused.status.code, 20010);
    const scheduled = page.getByTestId('delete-account-scheduled');
    await scheduled.getByPlaceholder(/e-mail/i).fill(email);
    await scheduled.getByPlaceholder(/password/i).fill(PASSWORD);
    await page.getByTestId('delete-account-cancel').click();
    await page.getByTestId('delete-account').waitFor();
    await page.getByTestId('account-name').filter({ hasText: 'Leaver' }).waitFor();
    await shot(page, '06-deletion-cancelled');
    // The page re-renders once more as the fresh sign-in settles (the form
    // can be swapped under the pointer); ask again from a steady page.
    await page.reload();
    await page.getByTestId('delete-account').waitFor();
    await ask();
    const swept = await apiPost(backend.url, '/api/v1/admin/account/deletion/sweep', {}, op.token);
    assert.equal(swept.finished, 1);
    const gone = await apiCall(backend.url, '/api/v1/account/login-in', { type: 'email', email, password: PASSWORD });
    assert.equal(gone.status.code, 20001, 'the account is gone and its address free');
    await page.context().close();
  });
});
