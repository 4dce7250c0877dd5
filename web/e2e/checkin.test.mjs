// Browser test of the daily check-in and awards (issue 22) against the real
// backend: a user opens the header's check-in, checks in, sees the streak, the
// toast and the header's credits grow by the day's reward; checking in again is
// not offered; publishing a post pops up "First post of the day: +20 stamina";
// the operator edits the schedule in /operate/checkin.
// Screenshots go to docs/screenshots/: checkin.png, checkin-award.png, operate-checkin.png.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { apiPost, signUp, until } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(WEB_DIR, '..', 'docs', 'screenshots');
const TIMEOUT_MS = 20_000;
const OPERATOR = 'checkin-operator@example.com';
const PASSWORD = 'checkin-test-password-1';

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {import('playwright-core').Page} */
let page;
let token = '';
const pageProblems = [];

async function credits() {
  const text = await page.getByTestId('header-credits').textContent();
  const m = /(\d+)/.exec(text ?? '');
  return m ? Number(m[1]) : NaN;
}

describe('daily check-in and awards', () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend({ env: { EASEL_ADMINS: OPERATOR, EASEL_TASK_AWARDS: 'on' } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'Asia/Shanghai' });
    page = await context.newPage();
    page.setDefaultTimeout(TIMEOUT_MS);
    page.on('pageerror', (e) => pageProblems.push(`pageerror: ${e.message}`));
    ({ token } = await signUp(backend.url, { prefix: 'checkin', password: PASSWORD, name: 'Check Inn' }));
    await context.addCookies([{ name: 'T', value: token, url: backend.url, sameSite: 'Lax' }]);
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await backend?.stop();
    }
  });

  test('a user checks in, sees the streak, the toast and the credits change', async () => {
    await page.goto(new URL('/en/', backend.url).href);
    await page.getByTestId('header-credits').waitFor();
    const before = await credits();
    assert.ok(Number.isFinite(before), 'the header shows the credits');
    const entry = page.getByTestId('checkin-entry');
    await until(page, 'the entry invites a check-in', async () => (await entry.textContent())?.includes('Check in'), TIMEOUT_MS);
    await entry.click();
    const panel = page.getByTestId('checkin-panel');
    await panel.waitFor();
    assert.equal(await panel.getByTestId('checkin-day').count(), 7);
    assert.equal(await panel.getByTestId('checkin-streak').getAttribute('data-streak'), '0');
    const button = panel.getByTestId('checkin-button');
    assert.equal(await button.textContent(), 'Check in (+5)');
    await button.click();
    await page.getByRole('status').filter({ hasText: '+5 credits' }).waitFor();
    await until(page, 'the streak reads 1', async () => (await panel.getByTestId('checkin-streak').getAttribute('data-streak')) === '1', TIMEOUT_MS);
    assert.match((await panel.getByTestId('checkin-streak').textContent()) ?? '', /Current streak: 1/);
    await panel.getByTestId('checkin-done').waitFor();
    assert.equal(await panel.getByTestId('checkin-button').count(), 0, 'no second check-in today');
    assert.equal(await panel.locator('[data-testid="checkin-day"][data-checked="true"]').count(), 1);
    await until(page, 'the credits grow by 5', async () => (await credits()) === before + 5, TIMEOUT_MS);
    assert.match((await entry.textContent()) ?? '', /1-day streak/);
    // The day counts in the browser's zone, pinned on the server.
    const info = await apiPost(backend.url, '/api/v1/activity/checkin/info', {}, token);
    assert.equal(info.time_zone, 'Asia/Shanghai');
    assert.equal(info.checked_today, true);
    await page.screenshot({ path: path.join(SHOTS, 'checkin.png') });
    // After a reload the panel still says checked in.
    await page.reload();
    await page.getByTestId('checkin-entry').click();
    await page.getByTestId('checkin-done').waitFor();
    assert.equal(await credits(), before + 5);
  });

  test('the first post of the day pops up its +20 award', async () => {
    const before = await credits();
    await apiPost(backend.url, '/api/v1/post/article/add', { title: 'Hello square', content: 'My first post.', visibility: 'public' }, token);
    const popup = page.getByTestId('award-popup');
    await popup.waitFor();
    await until(page, 'both awards listed', async () => (await popup.getByTestId('award-item').count()) === 2, TIMEOUT_MS);
    const text = (await popup.textContent()) ?? '';
    assert.match(text, /First post of the day: \+20 stamina/);
    assert.match(text, /First publication: \+20 stamina/);
    await page.screenshot({ path: path.join(SHOTS, 'checkin-award.png') });
    await page.getByTestId('award-ok').click();
    await until(page, 'the popup closes', async () => (await page.getByTestId('award-popup').count()) === 0, TIMEOUT_MS);
    await until(page, 'the credits grow by 40', async () => (await credits()) === before + 40, TIMEOUT_MS);
    // Seen: a reload shows no popup.
    await page.reload();
    await page.getByTestId('header-credits').waitFor();
    await page.waitForTimeout(500);
    assert.equal(await page.getByTestId('award-popup').count(), 0);
  });

  test('the operator edits the check-in schedule', async () => {
    const data = await apiPost(backend.url, '/api/v1/account/sign-up', { email: OPERATOR, password: PASSWORD, name: 'Operator' });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name: 'T', value: data.token, url: backend.url, sameSite: 'Lax' }]);
    const opPage = await context.newPage();
    opPage.setDefaultTimeout(TIMEOUT_MS);
    await opPage.goto(new URL('/en/operate/checkin', backend.url).href);
    const tab = opPage.getByTestId('checkin-admin');
    await tab.waitFor();
    const input = tab.getByTestId('schedule-input');
    assert.equal(await input.inputValue(), '5, 5, 10, 10, 15, 15, 30');
    await input.fill('7, 8, 9');
    await tab.getByTestId('schedule-save').click();
    await tab.getByText('Saved').first().waitFor();
    assert.equal(await tab.getByTestId('award-row').count(), 5);
    await opPage.screenshot({ path: path.join(SHOTS, 'operate-checkin.png') });
    const cfg = await apiPost(backend.url, '/api/v1/admin/award/list', {}, data.token);
    assert.deepEqual(cfg.schedule, [7, 8, 9]);
    // The user's calendar follows: three days.
    const info = await apiPost(backend.url, '/api/v1/activity/checkin/info', {}, token);
    assert.equal(info.calendar.length, 3);
    await context.close();
    assert.deepEqual(pageProblems, []);
  });
});
