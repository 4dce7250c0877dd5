/* global document, window -- page.evaluate callbacks run in the browser */
// Browser test of theme activities (issue 22 part 1) against the real
// backend, with three people in three browser contexts: an operator
// (EASEL_ADMINS) creates a live activity from the console `/operate/activities`
// (rules in Markdown, one period around now, pictures only, prizes 300/100,
// judged by votes); a painter publishes a picture, finds the activity in
// `/activities`, joins it with that picture from the activity's page, and sees
// it in the contributions and in "my contributions"; a voter votes for it;
// the operator closes the period from the console (votes mode judges at
// once); the painter's picture heads the excellent list with its prize, the
// ledger paid it once, and the picture's card in the square wears the
// activity's mark. Screenshots go to docs/screenshots/: activities-operate.png,
// activities-list.png, activities-join.png, activities-detail.png,
// activities-excellent.png.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { apiPost, online, signUp, until, makePicture } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(WEB_DIR, '..', 'docs', 'screenshots');
const WAIT_MS = 30_000;
const OPERATOR = 'activities-operator@example.com';
const ACTIVITY = 'Harbour at dusk';
const RULES = 'Paint the **harbour** at dusk.\n\n<script>window.__rulesRan = true</script>\n\nOne picture per entry.';
const WORK = 'Lanterns on the water';
const PRIZES = [300, 100];

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {Record<'op' | 'painter' | 'voter', {token: string, id: string, name: string, page: import('playwright-core').Page}>} */
const users = /** @type {any} */ ({});
let workId = '';
let activityId = '';
const pageProblems = [];

async function newUser(key, name, email) {
  const password = `activities-test-${key}-1`;
  const data = email
    ? await apiPost(backend.url, '/api/v1/account/sign-up', { email, password, name })
    : await signUp(backend.url, { prefix: `activities-${key}`, password, name });
  // UTC in the page, so the datetime-local fields read as the test writes them.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' });
  await context.addCookies([{ name: 'T', value: data.token, url: backend.url, sameSite: 'Lax' }]);
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  page.on('pageerror', (e) => pageProblems.push(`${key} pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content.Security.Policy/i.test(m.text())) pageProblems.push(`${key} csp: ${m.text()}`);
  });
  users[key] = { token: data.token, id: data.account.id, name, page };
  return users[key];
}

const asUser = (key) => (pathname, body) => apiPost(backend.url, pathname, body ?? {}, users[key].token);

async function shot(page, name) {
  await page.waitForFunction(() => [...document.images].every((img) => img.complete));
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/** A `datetime-local` value in UTC (the pages run in UTC). */
function localInput(ms) {
  return new Date(ms).toISOString().slice(0, 16);
}

async function credits(key) {
  const assets = await asUser(key)('/api/v1/payment/assets/get');
  return assets.available;
}

describe('activities: create, join with a published work, vote, judge, excellent list', { timeout: 300_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend({ env: { EASEL_ADMINS: OPERATOR } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    await newUser('op', 'Olga Operator', OPERATOR);
    await newUser('painter', 'Pia Painter');
    await newUser('voter', 'Vic Voter');

    // The painter makes a picture and publishes it (public).
    const post = asUser('painter');
    const taskId = await makePicture(post, 'lanterns on the harbour water at dusk', 11);
    ({ id: workId } = await post('/api/v1/post/portfolio/add_v2', { task_ids: [taskId], title: WORK, description: 'At dusk.', tags: ['harbour'], visibility: 'public' }));
    assert.ok(workId);
    // The publication earned task awards (first post of the day, first publish); take them as
    // seen here, so their popup does not cover this test's pages (e2e/checkin.test.mjs shows it).
    await post('/api/v1/face-photo/mark-user-activity-award-list');
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await backend?.stop();
    }
  });

  test('the operator creates a live activity from the console', async () => {
    const { page } = users.op;
    await page.goto(new URL('/en/', backend.url).href);
    await online(page);
    await page.getByTestId('header-operate').click();
    await page.waitForURL(/\/en\/operate$/);
    const tab = page.getByTestId('operate-activities');
    await tab.waitFor();
    const form = tab.getByTestId('activity-form');
    await form.getByTestId('form-title').fill(ACTIVITY);
    await form.getByTestId('form-rules').fill(RULES);
    // One period from a minute ago (datetime-local has minutes) to an hour ahead.
    const now = Date.now();
    await form.getByTestId('form-period-start').fill(localInput(now - 60_000));
    await form.getByTestId('form-period-end').fill(localInput(now + 3_600_000));
    assert.equal(await form.getByTestId('form-type-work').isChecked(), true);
    await form.getByTestId('form-prizes').fill(PRIZES.join(', '));
    await form.getByTestId('form-excellent-count').fill('2');
    await form.getByTestId('form-judging').selectOption('votes');
    await form.getByTestId('form-save').click();
    const row = tab.getByTestId('admin-activity').filter({ hasText: ACTIVITY });
    await row.waitFor();
    activityId = (await row.getAttribute('data-id')) ?? '';
    assert.ok(activityId, 'the new activity is listed');
    await row.getByTestId('activity-status').filter({ hasText: 'Live' }).waitFor();
    // What the server stored.
    const [stored] = (await asUser('op')('/api/v1/admin/activity/list')).items.filter((a) => a.id === activityId);
    assert.deepEqual(stored.prizes, PRIZES);
    assert.deepEqual(stored.types, ['work']);
    assert.equal(stored.judging, 'votes');
    await shot(page, 'activities-operate');
  });

  test('the painter joins the activity with the published picture', async () => {
    const { page } = users.painter;
    await page.goto(new URL('/en/', backend.url).href);
    await online(page);
    await page.getByTestId('header-activities').click();
    await page.waitForURL(/\/en\/activities$/);
    const tile = page.locator(`[data-testid="activity-tile"][data-id="${activityId}"]`);
    await tile.waitFor();
    assert.equal(await tile.getAttribute('data-status'), 'live');
    await tile.getByTestId('activity-countdown').filter({ hasText: /^Ends in \d\d:\d\d:\d\d$/ }).waitFor();
    await tile.getByText('#1: 300 credits').waitFor();
    await shot(page, 'activities-list');

    await tile.getByRole('link', { name: ACTIVITY }).click();
    await page.waitForURL(new RegExp(`/en/activities/${activityId}$`));
    const detail = page.getByTestId('activity-page');
    await detail.getByRole('heading', { name: ACTIVITY }).waitFor();
    // The rules: Markdown rendered, the script tag sanitised away by the server.
    await detail.getByTestId('activity-rules').locator('strong', { hasText: 'harbour' }).waitFor();
    assert.equal(await detail.getByTestId('activity-rules').locator('script').count(), 0);
    assert.equal(await page.evaluate(() => /** @type {any} */ (window).__rulesRan === true), false);

    await detail.getByTestId('activity-join').click();
    const dialog = page.getByTestId('join-dialog');
    const candidate = dialog.locator(`[data-testid="join-candidate"][data-obj="${workId}"]`);
    await candidate.waitFor();
    assert.equal(await candidate.getAttribute('data-type'), 'work');
    await candidate.click();
    await shot(page, 'activities-join');
    await dialog.getByTestId('join-submit').click();
    await dialog.waitFor({ state: 'detached' });
    await detail.getByTestId('join-done').filter({ hasText: 'Contributed to period 1.' }).waitFor();

    // In the contributions and in my contributions.
    await detail.locator(`[data-testid="activity-entry"][data-obj="${workId}"]`).getByText(WORK).waitFor();
    await detail.locator(`[data-testid="my-apply-entry"][data-obj="${workId}"][data-status="entered"]`).waitFor();
    // No vote button on one's own contribution.
    assert.equal(await detail.locator(`[data-testid="activity-entry"][data-obj="${workId}"]`).getByTestId('vote-button').count(), 0);

    // Joining again with the same picture is refused with the server's reason.
    await detail.getByTestId('activity-join').click();
    await dialog.locator(`[data-testid="join-candidate"][data-obj="${workId}"]`).click();
    await dialog.getByTestId('join-submit').click();
    await dialog.getByTestId('join-error').filter({ hasText: 'This work is already in this activity.' }).waitFor();
    await page.keyboard.press('Escape');
    await shot(page, 'activities-detail');
  });

  test('another user votes for the picture', async () => {
    const { page } = users.voter;
    await page.goto(new URL(`/en/activities/${activityId}`, backend.url).href);
    await online(page);
    const entry = page.locator(`[data-testid="activity-entry"][data-obj="${workId}"]`);
    await entry.getByTestId('vote-button').filter({ hasText: 'Vote · 0' }).click();
    await entry.getByTestId('vote-button').filter({ hasText: 'Voted · 1' }).waitFor();
    assert.equal(await entry.getByTestId('vote-button').getAttribute('aria-pressed'), 'true');
    // The server counted it.
    const posts = await asUser('voter')('/api/v1/theme-activity/post-list', { id: activityId, sort: 'top' });
    assert.equal(posts.items.find((e) => e.obj_id === workId)?.votes, 1);
  });

  test('the operator closes the period; the picture heads the excellent list with its prize, paid once', async () => {
    const before = await credits('painter');
    const { page } = users.op;
    await page.goto(new URL('/en/operate/activities', backend.url).href);
    await online(page);
    const tab = page.getByTestId('operate-activities');
    const row = tab.locator(`[data-testid="admin-activity"][data-id="${activityId}"]`);
    await row.getByTestId('admin-manage').click();
    const panel = tab.getByTestId('admin-periods');
    const period = panel.locator('[data-testid="admin-period"][data-period="0"]');
    // The contributions of the period, with their votes.
    await period.locator(`[data-testid="admin-entry"][data-obj="${workId}"]`).getByText('Votes: 1').waitFor();
    await period.getByTestId('admin-close').click();
    const result = period.getByTestId('admin-result');
    await result.locator(`li[data-obj="${workId}"]`).getByText('#1: 300 credits').waitFor();
    assert.equal(await result.getAttribute('data-status'), 'judged');
    await shot(page, 'activities-operate-judged');

    // Judging again (as the sweep would) pays nothing more.
    await asUser('op')('/api/v1/admin/activity/judge', { id: activityId, period: 0 });
    await until(page, 'the prize in the ledger', async () => (await credits('painter')) === before + PRIZES[0], 10_000);
    assert.equal(await credits('painter'), before + PRIZES[0]);

    // The painter sees the excellent list and the status of the contribution.
    const painter = users.painter.page;
    await painter.goto(new URL(`/en/activities/${activityId}`, backend.url).href);
    await online(painter);
    const winner = painter.locator(`[data-testid="excellent-winner"][data-obj="${workId}"]`);
    await winner.filter({ hasText: '#1: 300 credits' }).waitFor();
    assert.equal(await winner.getAttribute('data-rank'), '1');
    await painter.locator(`[data-testid="my-apply-entry"][data-obj="${workId}"][data-status="excellent"]`).waitFor();
    await painter.getByTestId('activity-join').and(painter.locator('[disabled]')).waitFor();
    await painter.getByTestId('excellent-list').scrollIntoViewIfNeeded();
    await shot(painter, 'activities-excellent');
  });

  test('the picture’s card in the square wears the activity’s mark, linking to the activity', async () => {
    const { page } = users.voter;
    await page.goto(new URL(`/en/user/${encodeURIComponent(users.painter.id)}`, backend.url).href);
    await online(page);
    const badge = page.locator(`[data-testid="work-card"][data-id="${workId}"]`).getByTestId('card-activity-badge');
    await badge.waitFor();
    assert.equal(await badge.getAttribute('data-kind'), 'activity');
    await badge.click();
    await page.waitForURL(new RegExp(`/en/event-center/${activityId}/0$`));
    await page.getByTestId('activity-page').getByRole('heading', { name: ACTIVITY }).waitFor();
  });

  test('no page errors', () => {
    assert.deepEqual(pageProblems, []);
  });
});
