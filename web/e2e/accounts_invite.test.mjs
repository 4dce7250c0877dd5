// Browser test of invite codes against the real backend and Chromium: a link
// with `?invite=CODE` keeps the code in localStorage and out of the URL, the
// sign-up popup sends it, and inviter and invitee are credited once (the
// operator's EASEL_INVITE_CREDITS_*); a wrong code shows InviteCodeError,
// creates no account and is cleared. Screenshots go to web/test-results/.
/* global window, document */
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { apiCall, apiPost, OK, signUp } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(WEB_DIR, 'test-results');
const WAIT_MS = 15_000;
/** en.ts InviteCodeError. */
const INVITE_ERROR = 'This invite code is not valid.';
const SIGNUP = 100;
const INVITER = 30;
const INVITEE = 20;

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {import('playwright-core').Page} */
let page;
const pageProblems = [];
/** @type {{token: string}} */
let inviter;
let code = '';

async function shot(name) {
  await page.screenshot({ path: path.join(SHOTS, `e2e-invite-${name}.png`), fullPage: true });
}

async function balance(token) {
  return (await apiPost(backend.url, '/api/v1/payment/assets/get', {}, token)).balance;
}

async function storedInvite() {
  return page.evaluate(() => window.localStorage.getItem('easel.userInvite'));
}

async function openSignUp() {
  await page.getByRole('banner').getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('dialog').getByRole('tab', { name: 'Sign up' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create your Easel account' });
  await dialog.waitFor();
  return dialog;
}

describe('invite codes against the real backend', { timeout: 180_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend({
      env: {
        EASEL_SIGNUP_CREDITS: String(SIGNUP),
        EASEL_INVITE_CREDITS_INVITER: String(INVITER),
        EASEL_INVITE_CREDITS_INVITEE: String(INVITEE),
      },
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('pageerror', (e) => pageProblems.push(`pageerror: ${e.message}`));
    inviter = await signUp(backend.url, { prefix: 'inviter', password: 'inviter-password-1', name: 'Inviter' });
    code = (await apiPost(backend.url, '/api/v1/account/invite/info', {}, inviter.token)).code;
    assert.match(code, /^[A-Z2-9]{8}$/);
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await backend?.stop();
    }
  });

  test('a link with the code keeps it and the sign-up credits both once', async () => {
    await page.goto(new URL(`/en/?invite=${code}`, backend.url).href);
    await page.getByRole('banner').getByRole('button', { name: 'Log in' }).waitFor();
    assert.equal(await storedInvite(), code, 'the code is kept in localStorage');
    assert.doesNotMatch(page.url(), /invite=/, 'and taken out of the address bar');
    const dialog = await openSignUp();
    assert.equal(await dialog.getByLabel('Invite code (optional)').inputValue(), code);
    await dialog.getByLabel('Display name').fill('Invitee');
    await dialog.getByLabel('E-mail').fill(`invitee.${Date.now()}@example.com`);
    await dialog.getByLabel('Password').fill('invitee-password-1');
    await shot('01-signup-with-code');
    await dialog.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await page.getByTestId('account-name').filter({ hasText: 'Invitee' }).waitFor();
    const token = await page.evaluate(() => /(?:^|; )T=([^;]+)/.exec(document.cookie)?.[1] ?? '');
    assert.ok(token, 'logged in');
    assert.equal(await balance(token), SIGNUP + INVITEE);
    assert.equal(await balance(inviter.token), SIGNUP + INVITER);
    const mine = await apiPost(backend.url, '/api/v1/account/invite/info', {}, token);
    assert.equal(mine.invited_by.name, 'Inviter');
    const theirs = await apiPost(backend.url, '/api/v1/account/invite/info', {}, inviter.token);
    assert.equal(theirs.invited_count, 1);
    await shot('02-signed-up');
    await page.getByRole('banner').getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('banner').getByRole('button', { name: 'Log in' }).waitFor();
    // Nothing was granted twice.
    assert.equal(await balance(inviter.token), SIGNUP + INVITER);
  });

  test('a wrong code shows InviteCodeError, creates no account and is cleared', async () => {
    await page.goto(new URL('/en/?invite=WRONGCODE', backend.url).href);
    await page.getByRole('banner').getByRole('button', { name: 'Log in' }).waitFor();
    assert.equal(await storedInvite(), 'WRONGCODE');
    const dialog = await openSignUp();
    const email = `wrong.${Date.now()}@example.com`;
    await dialog.getByLabel('Display name').fill('Wrong');
    await dialog.getByLabel('E-mail').fill(email);
    await dialog.getByLabel('Password').fill('wrong-password-1');
    await dialog.getByRole('button', { name: 'Create account' }).click();
    const error = page.getByTestId('login-error');
    await error.waitFor();
    assert.equal(await error.textContent(), INVITE_ERROR);
    assert.equal(await storedInvite(), null, 'the stored code is cleared');
    assert.equal(await dialog.getByLabel('Invite code (optional)').inputValue(), '');
    await shot('03-wrong-code');
    const login = await apiCall(backend.url, '/api/v1/account/login-in', { type: 'email', email, password: 'wrong-password-1' });
    assert.equal(login.status.code, 20001, 'no account was created');
    // Without the code the same sign-up goes through.
    await dialog.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await page.getByTestId('account-name').filter({ hasText: 'Wrong' }).waitFor();
    const again = await apiCall(backend.url, '/api/v1/account/login-in', { type: 'email', email, password: 'wrong-password-1' });
    assert.equal(again.status.code, OK);
  });

  test('no page errors happened', () => {
    assert.deepEqual(pageProblems, []);
  });
});
