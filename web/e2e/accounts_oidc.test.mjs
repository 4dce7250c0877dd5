// Browser test of third-party sign-in (issue 21 item 2) against the real
// backend and a fake OpenID provider (oidcFake.mjs) in real Chromium: the
// popup shows the enabled provider's button, the provider sends the browser
// back to /oidc/callback, a new user completes the final step, signs in
// again without it, a replayed callback is refused with its message, and
// the provider-only account asks for its deletion by signing in again at
// the provider (no password to re-enter), then cancels it the same way.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { startFakeOidc } from './oidcFake.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(WEB_DIR, 'test-results');
const TIMEOUT_MS = 15_000;
/** en.oidc.ts OidcStateInvalid. */
const STATE_INVALID = 'This sign-in attempt expired or was already used. Please start again.';

let backend;
let fake;
let browser;
let page;
const pageProblems = [];
let callbackUrl = '';

async function shot(name) {
  await page.screenshot({ path: path.join(SHOTS, `e2e-oidc-${name}.png`), fullPage: true });
}

function header() {
  return page.getByRole('banner');
}

async function signInWithProvider() {
  await header().getByRole('button', { name: 'Log in' }).click();
  const dialog = page.getByRole('dialog', { name: 'Log in to Easel' });
  const buttons = dialog.getByTestId('provider-buttons').getByRole('button');
  await buttons.first().waitFor();
  assert.equal(await buttons.count(), 1, 'only the provider the operator enabled');
  await shot('01-popup-with-provider');
  const back = page.waitForURL(/\/oidc\/callback\?/, { timeout: TIMEOUT_MS });
  await dialog.getByRole('button', { name: 'Continue with Acme ID' }).click();
  await back;
  callbackUrl = page.url();
}

describe('sign in with an OpenID provider', { timeout: 180_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    fake = await startFakeOidc({
      clientId: 'easel-e2e',
      clientSecret: 'e2e-secret',
      user: { sub: 'ada-1815', email: `ada.${Date.now()}@acme.example`, name: 'Ada' },
    });
    backend = await startBackend({
      env: {
        EASEL_OIDC_PROVIDERS: 'acme',
        EASEL_OIDC_ACME_ISSUER: fake.issuer,
        EASEL_OIDC_ACME_CLIENT_ID: 'easel-e2e',
        EASEL_OIDC_ACME_CLIENT_SECRET: 'e2e-secret',
        EASEL_OIDC_ACME_LABEL: 'Acme ID',
      },
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'],
    });
    page = await (await browser.newContext({ viewport: { width: 1200, height: 800 } })).newPage();
    page.setDefaultTimeout(TIMEOUT_MS);
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
      await fake?.close();
    }
  });

  test('a new user signs in with the provider and completes the final step', async () => {
    await page.goto(new URL('/en/', backend.url).href);
    await signInWithProvider();
    const finalStep = page.getByRole('dialog', { name: 'One last step' });
    await finalStep.waitFor();
    assert.equal(fake.grants(), 1, 'the code was exchanged once');
    await finalStep.getByLabel('Display name').fill('Ada Lovelace');
    await shot('02-final-step');
    await finalStep.getByRole('button', { name: 'Continue' }).click();
    await finalStep.waitFor({ state: 'hidden' });
    await page.getByTestId('account-name').filter({ hasText: 'Ada Lovelace' }).waitFor();
    assert.match(new URL(page.url()).pathname, /^\/en\/$/, 'back where the sign-in started');
    await shot('03-signed-in');
  });

  test('the same user signs in again without the final step', async () => {
    await header().getByRole('button', { name: 'Log out' }).click();
    await header().getByRole('button', { name: 'Log in' }).waitFor();
    await signInWithProvider();
    await page.getByTestId('account-name').filter({ hasText: 'Ada Lovelace' }).waitFor();
    assert.equal(await page.getByRole('dialog').count(), 0);
    assert.equal(fake.grants(), 2);
  });

  test('a replayed callback is refused with its message', async () => {
    await header().getByRole('button', { name: 'Log out' }).click();
    await header().getByRole('button', { name: 'Log in' }).waitFor();
    await page.goto(callbackUrl);
    const error = page.getByTestId('oidc-error');
    await error.waitFor();
    assert.equal(await error.textContent(), STATE_INVALID);
    await header().getByRole('button', { name: 'Log in' }).waitFor();
    await shot('04-replay-refused');
  });

  test('a provider-only account confirms its deletion at the provider, then cancels it there', async () => {
    await signInWithProvider();
    await page.getByTestId('account-name').filter({ hasText: 'Ada Lovelace' }).waitFor();
    await page.goto(new URL('/en/settings/account', backend.url).href);
    await page.getByTestId('delete-account-start').click();
    assert.equal(await page.getByTestId('delete-account-password').count(), 0, 'no password to ask for');
    await shot('05-delete-confirm-with-provider');
    const grants = fake.grants();
    const back = page.waitForURL(/\/oidc\/callback\?/, { timeout: TIMEOUT_MS });
    await page.getByTestId('delete-account-provider-acme').click();
    await back;
    const scheduled = page.getByTestId('delete-account-scheduled');
    await scheduled.waitFor();
    assert.match(new URL(page.url()).pathname, /^\/en\/settings\/account$/);
    assert.equal(fake.grants(), grants + 1, 'one fresh sign-in at the provider');
    await header().getByRole('button', { name: 'Log in' }).waitFor();
    await shot('06-deletion-scheduled');
    await scheduled.getByRole('button', { name: 'Cancel with Acme ID' }).click();
    await page.getByTestId('delete-account').waitFor();
    await page.getByTestId('account-name').filter({ hasText: 'Ada Lovelace' }).waitFor();
    await shot('07-deletion-cancelled');
  });

  test('no page errors or CSP violations happened', () => {
    assert.deepEqual(pageProblems, []);
  });
});
