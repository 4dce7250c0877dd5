// Browser test of account security (issue 21) against the real backend and
// real Chromium: turn on two-factor in /settings (the test computes the TOTP
// code from the shown key, RFC 6238), sign in again with a code, sign in a
// second browser with a recovery code, then sign that second session out
// from the first: its socket closes and its next call is unauthenticated.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { apiCall, OK, signUp } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(WEB_DIR, 'test-results');
const STATE_TIMEOUT_MS = 15_000;
const PASSWORD = 'two-factor-e2e-2026';
const NAME = 'Tess Totp';

/** RFC 4648 base32 (no padding) to bytes. */
function base32(s) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out = [];
  for (const c of s.replace(/=+$/, '').toUpperCase()) {
    const i = alphabet.indexOf(c);
    assert.ok(i >= 0, `not base32: ${c}`);
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** RFC 6238 TOTP (SHA-1, 6 digits, 30 s) at `unixSecs`. */
function totp(secret, unixSecs) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(unixSecs / 30)));
  const mac = createHmac('sha1', base32(secret)).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const n = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(n).padStart(6, '0');
}

let backend;
let browser;
/** @type {import('playwright-core').BrowserContext[]} */
const contexts = [];
const pageProblems = [];
let email;
let secret;
let recovery = [];

async function newPage() {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(STATE_TIMEOUT_MS);
  page.on('pageerror', (e) => pageProblems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content.Security.Policy/i.test(m.text())) pageProblems.push(`csp: ${m.text()}`);
  });
  return { context, page };
}

async function socketState(page, state) {
  await page.getByTestId('socket-state').filter({ hasText: new RegExp(`^${state}$`) }).waitFor({ timeout: STATE_TIMEOUT_MS });
}

async function token(context) {
  return (await context.cookies()).find((c) => c.name === 'T')?.value;
}

/** Logs in through the popup; answers when the second step shows. */
async function passwordStep(page) {
  await page.getByRole('banner').getByRole('button', { name: 'Log in' }).click();
  const dialog = page.getByRole('dialog', { name: 'Log in to Easel' });
  await dialog.getByLabel('E-mail').fill(email);
  await dialog.getByLabel('Password').fill(PASSWORD);
  await dialog.locator('button[type="submit"]').click();
  await dialog.getByTestId('login-2fa').waitFor();
  return dialog;
}

let first;
let second;

describe('account security against the real backend', { timeout: 240_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const data = await signUp(backend.url, { prefix: 'tess', password: PASSWORD, name: NAME });
    email = data.account.email;
    // Only the browsers' sessions remain.
    assert.equal((await apiCall(backend.url, '/api/v1/account/logout', undefined, data.token)).status.code, OK);
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await backend?.stop();
    }
  });

  test('logging in and turning on two-factor in the settings', async () => {
    first = await newPage();
    const { page } = first;
    await page.goto(new URL('/en/', backend.url).href);
    await page.getByRole('banner').getByRole('button', { name: 'Log in' }).click();
    const dialog = page.getByRole('dialog', { name: 'Log in to Easel' });
    await dialog.getByLabel('E-mail').fill(email);
    await dialog.getByLabel('Password').fill(PASSWORD);
    await dialog.locator('button[type="submit"]').click();
    await dialog.waitFor({ state: 'hidden' });
    await socketState(page, 'online');

    await page.getByTestId('account-settings-link').click();
    await page.getByTestId('settings-page').waitFor();
    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByTestId('settings-two-factor').waitFor();
    const off = page.getByTestId('twofa-off');
    await off.getByLabel('Password').fill(PASSWORD);
    await off.getByTestId('twofa-start').click();
    const enrol = page.getByTestId('twofa-enrol');
    await enrol.getByTestId('twofa-qr').waitFor();
    const qr = await enrol.getByTestId('twofa-qr').getAttribute('src');
    assert.match(qr ?? '', /^data:image\/svg\+xml;base64,/);
    secret = (await enrol.getByTestId('twofa-secret').textContent())?.trim() ?? '';
    assert.match(secret, /^[A-Z2-7]{32}$/);
    await page.screenshot({ path: path.join(SHOTS, 'e2e-security-01-enrol.png'), fullPage: true });
    await enrol.getByLabel('6-digit code').fill(totp(secret, Date.now() / 1000));
    await enrol.getByTestId('twofa-confirm').click();
    const codes = page.getByTestId('twofa-recovery-codes');
    await codes.waitFor();
    recovery = (await codes.locator('li').allTextContents()).map((c) => c.trim());
    assert.equal(recovery.length, 10);
    await page.screenshot({ path: path.join(SHOTS, 'e2e-security-02-recovery.png'), fullPage: true });
    await page.getByRole('button', { name: 'I saved them' }).click();
    await page.getByTestId('twofa-on').waitFor();
  });

  test('signing in again asks for the code and accepts it', async () => {
    const { page, context } = first;
    await page.getByRole('banner').getByRole('button', { name: 'Log out' }).click();
    await socketState(page, 'offline');
    const dialog = await passwordStep(page);
    assert.equal(await token(context), undefined, 'no token after the password alone');
    await dialog.getByLabel('Code or recovery code').fill('000000');
    await dialog.getByRole('button', { name: 'Verify' }).click();
    await page.getByTestId('login-error').waitFor();
    // The next step's code: later than the one used to confirm.
    await dialog.getByLabel('Code or recovery code').fill(totp(secret, Date.now() / 1000 + 30));
    await dialog.getByRole('button', { name: 'Verify' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await socketState(page, 'online');
    await page.getByTestId('account-name').filter({ hasText: NAME }).waitFor();
  });

  test('a second browser signs in with a recovery code', async () => {
    second = await newPage();
    const { page } = second;
    await page.goto(new URL('/en/', backend.url).href);
    const dialog = await passwordStep(page);
    await dialog.getByLabel('Code or recovery code').fill(recovery[0]);
    await dialog.getByRole('button', { name: 'Verify' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await socketState(page, 'online');
  });

  test('signing out the other session closes its socket and ends its token', async () => {
    const { page } = first;
    const secondToken = await token(second.context);
    assert.ok(secondToken);
    await page.goto(new URL('/en/settings/security', backend.url).href);
    const rows = page.getByTestId('session-row');
    await rows.nth(1).waitFor();
    assert.equal(await rows.count(), 2);
    await page.screenshot({ path: path.join(SHOTS, 'e2e-security-03-sessions.png'), fullPage: true });
    await page.locator('[data-testid="session-row"][data-current="false"]').getByRole('button', { name: 'Sign out' }).click();
    await rows.nth(1).waitFor({ state: 'detached' });
    // The second browser's socket closes at once and it is logged out.
    await socketState(second.page, 'offline');
    const info = await apiCall(backend.url, '/api/v1/account/info', undefined, secondToken);
    assert.notEqual(info.status.code, OK);
    assert.equal(info.status.key, 'NeedLogin');
    // The first browser is still signed in.
    await socketState(page, 'online');
    const mine = await apiCall(backend.url, '/api/v1/account/info', undefined, await token(first.context));
    assert.equal(mine.status.code, OK);
  });

  test('no page errors or CSP violations happened', () => {
    assert.deepEqual(pageProblems, []);
  });
});
