// Browser test of account mail (issue 21) against the real backend, a real
// SMTP server (aiosmtpd) and real Chromium: sign up through the popup, verify
// the address with the code read from the mail (after "Later", from the
// banner), then reset a forgotten password from the mail's link and log in
// with the new one. Screenshots go to web/test-results/.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { until } from './helpers.mjs';
import { startSmtp } from './smtpServer.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(WEB_DIR, 'test-results');
const WAIT_MS = 20_000;
const PUBLIC_URL = 'https://easel.e2e.test';

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {Awaited<ReturnType<typeof startSmtp>> | undefined} */
let smtp;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {import('playwright-core').Page} */
let page;
const pageProblems = [];

const user = {
  name: 'Mary Somerville',
  email: `mary.${Date.now()}@example.com`,
  password: 'connexion-of-sciences',
  newPassword: 'mechanism-of-the-heavens',
};

async function shot(name) {
  await page.screenshot({ path: path.join(SHOTS, `e2e-mail-${name}.png`), fullPage: true });
}

/** Waits for the n-th mail to `to` and answers it. */
async function nthMail(to, n) {
  return until(page, `mail #${n} to ${to}`, async () => (await smtp.mailsTo(to))[n - 1], WAIT_MS);
}

function header() {
  return page.getByRole('banner');
}

describe('account mail against the real backend and SMTP server', { timeout: 240_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    smtp = await startSmtp();
    backend = await startBackend({ env: { ...smtp.env, EASEL_PUBLIC_URL: PUBLIC_URL } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('pageerror', (e) => pageProblems.push(`pageerror: ${e.message}`));
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await backend?.stop();
      await smtp?.stop();
    }
  });

  test('sign-up opens the verify step; later, the banner verifies by the mailed code', async () => {
    await page.goto(new URL('/en/', backend.url).href);
    await header().getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('dialog').getByRole('tab', { name: 'Sign up' }).click();
    const signUp = page.getByRole('dialog', { name: 'Create your Easel account' });
    await signUp.getByLabel('Display name').fill(user.name);
    await signUp.getByLabel('E-mail').fill(user.email);
    await signUp.getByLabel('Password').fill(user.password);
    await signUp.getByRole('button', { name: 'Create account' }).click();

    const verify = page.getByRole('dialog', { name: 'Verify your e-mail' });
    await verify.waitFor();
    assert.match(await verify.textContent(), new RegExp(user.email.replace(/[.]/g, '\\.')));
    await shot('01-verify-step');
    await verify.getByRole('button', { name: 'Later' }).click();
    await verify.waitFor({ state: 'hidden' });
    const banner = page.getByTestId('verify-banner');
    await banner.waitFor();
    await shot('02-banner');

    const mail = await nthMail(user.email, 1);
    const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
    assert.ok(code, `a code in: ${mail.text}`);
    assert.match(mail.html, new RegExp(code));

    await banner.getByRole('button', { name: 'Verify now' }).click();
    await verify.waitFor();
    const wrong = code === '000000' ? '111111' : '000000';
    await verify.getByLabel('Verification code').fill(wrong);
    await verify.getByRole('button', { name: 'Verify' }).click();
    const error = page.getByTestId('login-error');
    await error.waitFor();
    assert.equal(await error.textContent(), 'Wrong verification code.');
    await verify.getByLabel('Verification code').fill(code);
    await verify.getByRole('button', { name: 'Verify' }).click();
    await verify.waitFor({ state: 'hidden' });
    await banner.waitFor({ state: 'detached' });
    await shot('03-verified');
  });

  test('a forgotten password is reset from the mailed link', async () => {
    await header().getByRole('button', { name: 'Log out' }).click();
    await header().getByRole('button', { name: 'Log in' }).click();
    const dialog = page.getByRole('dialog', { name: 'Log in to Easel' });
    await dialog.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL(/\/en\/forgot$/);
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByTestId('forgot-sent').waitFor();
    await shot('04-forgot-sent');

    const mail = await nthMail(user.email, 2);
    const link = mail.text.split(/\s+/).find((w) => w.includes('/reset?token='));
    assert.ok(link?.startsWith(`${PUBLIC_URL}/en/reset?token=`), `link: ${link}`);
    // EASEL_PUBLIC_URL names the public host; the test opens the same path here.
    const url = new URL(link);
    await page.goto(new URL(`${url.pathname}${url.search}`, backend.url).href);
    await page.getByLabel('New password', { exact: true }).fill(user.newPassword);
    await shot('05-reset-form');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.getByTestId('reset-done').waitFor();

    // The link works once.
    await page.goto(new URL(`${url.pathname}${url.search}`, backend.url).href);
    await page.getByLabel('New password', { exact: true }).fill('yet another password');
    await page.getByRole('button', { name: 'Set the password' }).click();
    const error = page.getByTestId('login-error');
    await error.waitFor();
    assert.equal(await error.textContent(), 'This reset link has expired. Please request a new one.');

    await header().getByRole('button', { name: 'Log in' }).click();
    const login = page.getByRole('dialog', { name: 'Log in to Easel' });
    await login.getByLabel('E-mail').fill(user.email);
    await login.getByLabel('Password').fill(user.newPassword);
    await login.locator('button[type="submit"]').click();
    await login.waitFor({ state: 'hidden' });
    await page.getByTestId('account-name').filter({ hasText: user.name }).waitFor();
    await shot('06-logged-in-with-new-password');
  });

  test('no page errors happened', () => {
    assert.deepEqual(pageProblems, []);
  });
});
