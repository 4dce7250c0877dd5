// Browser test of the login flow against the real backend binary and real
// Chromium: sign up through the popup, watch the socket go online, restore
// the session from cookie T after a reload, log out, and see the translated
// PasswordError for a wrong password. Screenshots go to web/test-results/.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { apiCall, OK } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(WEB_DIR, 'test-results');
/** en.ts PasswordError: the message a wrong password must show. */
const PASSWORD_ERROR = 'Wrong password. Please try again.';
const STATE_TIMEOUT_MS = 15_000;

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {import('playwright-core').BrowserContext} */
let context;
/** @type {import('playwright-core').Page} */
let page;
/** Uncaught page errors and CSP reports seen by the browser. */
const pageProblems = [];

const user = {
  name: 'Ada Lovelace',
  email: `ada.${Date.now()}@example.com`,
  password: 'analytical-engine-1843',
};

async function shot(name) {
  await page.screenshot({ path: path.join(SHOTS, `e2e-${name}.png`), fullPage: true });
}

async function expectSocketState(state) {
  const badge = page.getByTestId('socket-state');
  await badge.filter({ hasText: new RegExp(`^${state}$`) }).waitFor({ timeout: STATE_TIMEOUT_MS });
  assert.equal(await badge.textContent(), state);
}

function header() {
  return page.getByRole('banner');
}

async function tokenCookie() {
  return (await context.cookies()).find((c) => c.name === 'T');
}

describe('login popup against the real backend', { timeout: 180_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(STATE_TIMEOUT_MS);
    page.on('pageerror', (e) => pageProblems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content.Security.Policy/i.test(m.text())) pageProblems.push(`csp: ${m.text()}`);
    });
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await backend?.stop();
    }
  });

  test('the root redirects to /en/ and the page is served under a strict CSP', async () => {
    const response = await page.goto(backend.url);
    assert.ok(response, 'no response for /');
    await page.waitForURL(/\/en\/$/);
    const csp = (await page.goto(new URL('/en/', backend.url).href))?.headers()['content-security-policy'] ?? '';
    assert.match(csp, /default-src 'self'/, `CSP header: ${csp}`);
    assert.doesNotMatch(csp, /script-src[^;]*'unsafe-inline'/);
    await header().getByText('Easel').waitFor();
    await expectSocketState('offline');
    await header().getByRole('button', { name: 'Log in' }).waitFor();
    await shot('01-home-logged-out');
  });

  test('signing up through the popup logs in and brings the socket online', async () => {
    await header().getByRole('button', { name: 'Log in' }).click();
    const dialog = page.getByRole('dialog', { name: 'Log in to Easel' });
    await dialog.waitFor();
    await dialog.getByRole('tab', { name: 'Sign up' }).click();
    const signUp = page.getByRole('dialog', { name: 'Create your Easel account' });
    await signUp.waitFor();
    await signUp.getByLabel('Display name').fill(user.name);
    await signUp.getByLabel('E-mail').fill(user.email);
    await signUp.getByLabel('Password').fill(user.password);
    await shot('02-signup-form');
    await signUp.getByRole('button', { name: 'Create account' }).click();

    await page.getByRole('dialog').waitFor({ state: 'hidden', timeout: STATE_TIMEOUT_MS });
    await page.getByTestId('account-name').filter({ hasText: user.name }).waitFor();
    await expectSocketState('online');
    const cookie = await tokenCookie();
    assert.ok(cookie?.value, 'cookie T is set after sign-up');
    assert.equal(cookie.path, '/');
    assert.equal(cookie.sameSite, 'Lax');
    assert.equal(cookie.httpOnly, false, 'cookie T must be readable by the page');
    const days = (cookie.expires - Date.now() / 1000) / 86_400;
    assert.ok(days > 59 && days <= 60.01, `cookie T lives 60 days, got ${days.toFixed(2)}`);
    await shot('03-signed-up-online');
  });

  test('a reload restores the session from cookie T', async () => {
    await page.reload();
    await page.getByTestId('account-name').filter({ hasText: user.name }).waitFor({ timeout: STATE_TIMEOUT_MS });
    await expectSocketState('online');
    await shot('04-reloaded-online');
  });

  test('logging out ends the session here and on the server', async () => {
    const token = (await tokenCookie())?.value;
    assert.ok(token);
    await header().getByRole('button', { name: 'Log out' }).click();
    await expectSocketState('offline');
    await header().getByRole('button', { name: 'Log in' }).waitFor();
    assert.equal(await tokenCookie(), undefined, 'cookie T is cleared');
    // The whole envelope, not asserted: this call must fail.
    const info = await apiCall(backend.url, '/api/v1/account/info', undefined, token);
    assert.notEqual(info.status.code, OK, 'the old token no longer works');
    await page.reload();
    await expectSocketState('offline');
    await shot('05-logged-out');
  });

  test('a wrong password shows the translated PasswordError', async () => {
    await header().getByRole('button', { name: 'Log in' }).click();
    const dialog = page.getByRole('dialog', { name: 'Log in to Easel' });
    await dialog.getByLabel('E-mail').fill(user.email);
    await dialog.getByLabel('Password').fill('not-the-password');
    await dialog.locator('button[type="submit"]').click();
    const error = page.getByTestId('login-error');
    await error.waitFor({ timeout: STATE_TIMEOUT_MS });
    assert.equal(await error.textContent(), PASSWORD_ERROR);
    await expectSocketState('offline');
    await shot('06-wrong-password');
  });

  test('the right password logs in again', async () => {
    const dialog = page.getByRole('dialog', { name: 'Log in to Easel' });
    await dialog.getByLabel('Password').fill(user.password);
    await dialog.locator('button[type="submit"]').click();
    await dialog.waitFor({ state: 'hidden', timeout: STATE_TIMEOUT_MS });
    await expectSocketState('online');
    await page.getByTestId('account-name').filter({ hasText: user.name }).waitFor();
    await shot('07-logged-in-again');
  });

  test('a sign-up without a name goes through the final step (status 3)', async () => {
    await header().getByRole('button', { name: 'Log out' }).click();
    await expectSocketState('offline');
    await header().getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('dialog').getByRole('tab', { name: 'Sign up' }).click();
    const signUp = page.getByRole('dialog', { name: 'Create your Easel account' });
    await signUp.getByLabel('E-mail').fill(`grace.${Date.now()}@example.com`);
    await signUp.getByLabel('Password').fill('compiler-1952');
    await signUp.getByRole('button', { name: 'Create account' }).click();

    const finalStep = page.getByRole('dialog', { name: 'One last step' });
    await finalStep.waitFor();
    await expectSocketState('offline');
    await finalStep.getByLabel('Display name').fill('Grace Hopper');
    await shot('08-final-step');
    await finalStep.getByRole('button', { name: 'Continue' }).click();
    await finalStep.waitFor({ state: 'hidden' });
    await page.getByTestId('account-name').filter({ hasText: 'Grace Hopper' }).waitFor();
    await expectSocketState('online');
    await shot('09-profile-completed');
  });

  test('no page errors or CSP violations happened', () => {
    assert.deepEqual(pageProblems, []);
  });
});
