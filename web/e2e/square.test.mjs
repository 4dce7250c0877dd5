/* global document, window -- page.evaluate callbacks run in the browser */
// Browser test of the square (issue 15) against the real backend and two
// users in two browser contexts: A makes a picture, posts it from the task's
// action bar and checks it on its page; B finds it on the square and by
// search (with completion as B types), likes it, comments, and follows A;
// A's bell counts the notifications pushed on frame 13 and leads to the
// work. Screenshots at desktop and phone (390 px) widths go to
// docs/screenshots/: square.png, artwork.png, profile.png, search.png,
// square-phone.png, artwork-phone.png.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { apiPost, online, signUp } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(WEB_DIR, '..', 'docs', 'screenshots');
const WAIT_MS = 30_000;
const TITLE = 'Lighthouse at dusk';
const COMMENT = 'The light on the water is lovely';

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {Record<'a' | 'b', {token: string, id: string, name: string, context: import('playwright-core').BrowserContext, page: import('playwright-core').Page}>} */
const users = /** @type {any} */ ({});
let taskId = '';
let workId = '';
const pageProblems = [];

async function newUser(key, name) {
  const data = await signUp(backend.url, { prefix: `square-${key}`, password: `square-test-${key}-1`, name });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: backend.url });
  await context.addCookies([{ name: 'T', value: data.token, url: backend.url, sameSite: 'Lax' }]);
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  page.on('pageerror', (e) => pageProblems.push(`${key} pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content.Security.Policy/i.test(m.text())) pageProblems.push(`${key} csp: ${m.text()}`);
  });
  users[key] = { token: data.token, id: data.account.id, name, context, page };
  return users[key];
}

const asUser = (key) => (pathname, body) => apiPost(backend.url, pathname, body ?? {}, users[key].token);

async function shot(page, name) {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/** Waits until every image in the viewport has loaded (so screenshots show pictures). */
async function imagesLoaded(page) {
  await page.waitForFunction(() => [...document.images].every((img) => img.complete));
}

describe('the square: post, find, search, like, comment, follow, notify', { timeout: 300_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    // Hot snapshots (the recommended and hot tabs) every 200 ms instead of every minute.
    backend = await startBackend({ env: { EASEL_REFERENCE_STEP_MS: '5', EASEL_SQUARE_RANK_MS: '200' } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    await newUser('a', 'Ada Painter');
    await newUser('b', 'Bea Viewer');
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await backend?.stop();
    }
  });

  test('A makes a picture and posts it from the action bar', async () => {
    const { page } = users.a;
    const post = asUser('a');
    const catalogue = await post('/api/v1/task/v2/config/model');
    const sd = catalogue.checkpoints.find((c) => c.family === 'sd');
    assert.ok(sd, 'an sd checkpoint');
    ({ id: taskId } = await post('/api/v1/task/create', {
      action: 1,
      category: 1,
      art_model_ver_no: sd.model_ver_no,
      meta: { prompt: 'a lighthouse at dusk, watercolor', width: 512, height: 768, n_iter: 2, steps: 8, seed: 11 },
    }));
    await page.goto(new URL('/en/create', backend.url).href);
    await online(page);
    const card = page.locator(`[data-testid="task-card"][data-task-id="${taskId}"]`);
    await card.and(page.locator('[data-status="3"]')).waitFor();

    const bar = card.getByTestId('action-bar').first();
    await bar.getByRole('button', { name: 'More' }).click();
    await bar.getByRole('menuitem', { name: /Post/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Post to the square' });
    await dialog.waitFor();

    // The server's limits are checked before anything is sent.
    await dialog.getByLabel('Title').fill('x'.repeat(101));
    await dialog.getByRole('button', { name: 'Post', exact: true }).click();
    await dialog.getByText('A title has at most 100 characters.').waitFor();

    await dialog.getByLabel('Title').fill(TITLE);
    await dialog.getByLabel('Description').fill('Painted by the reference engine for the square test.');
    await dialog.getByLabel('Tags').fill('lighthouse, watercolor');
    await dialog.getByRole('button', { name: 'Post', exact: true }).click();
    // Success turns the dialog into spec 1 §2's "check it now".
    const done = page.getByRole('dialog', { name: 'Posted!' });
    await done
      .getByTestId('publish-done')
      .waitFor()
      .catch(async (e) => assert.fail(`the post did not succeed: ${await page.locator('[role="dialog"]').textContent()} (${e})`));
    await done.getByRole('button', { name: 'Check it now' }).click();
    await page.waitForURL(/\/en\/artWorkDetail\/[^/]+$/);
    workId = decodeURIComponent(page.url().split('/').pop() ?? '');
    assert.ok(workId);
    const work = page.getByTestId('work-page');
    await work.getByRole('heading', { name: TITLE }).waitFor();
    assert.equal(await work.getByTestId('work-image').count(), 2);
    await work.getByTestId('work-params').getByText('a lighthouse at dusk, watercolor').first().waitFor();

    // The task now links to its work.
    await page.goBack();
    await card.getByTestId('posted-link').first().waitFor();
    assert.equal(await card.getByTestId('posted-link').first().getAttribute('href'), `/en/artWorkDetail/${encodeURIComponent(workId)}`);
  });

  test('B finds the work on the square and by search with completion', async () => {
    const { page } = users.b;
    await page.goto(new URL('/en/', backend.url).href);
    await online(page);
    // Recommended (from the periodic hot snapshot), then the newest works.
    const tile = page.locator(`[data-testid="work-card"][data-id="${workId}"]`);
    await tile.getByText(TITLE).waitFor();
    await page.getByRole('tab', { name: 'New' }).click();
    await tile.getByText(TITLE).waitFor();
    await imagesLoaded(page);
    await shot(page, 'square');

    const input = page.getByTestId('search-input').first();
    await input.click();
    await input.pressSequentially('lightho', { delay: 30 });
    const suggestion = page.getByTestId('search-suggestion').filter({ hasText: /lighthouse/i }).first();
    await suggestion.waitFor();
    const term = ((await suggestion.textContent()) ?? '').trim();
    await suggestion.click();
    await page.waitForURL((url) => url.pathname === '/en/search' && url.searchParams.get('q') === term);
    await page.getByTestId('search-page').locator(`[data-testid="work-card"][data-id="${workId}"]`).waitFor();
    await page.getByRole('link', { name: 'Accounts', exact: true }).click();
    await page.waitForURL(/kind=account/);
    await page.getByRole('link', { name: 'All', exact: true }).click();
    await page.locator(`[data-testid="work-card"][data-id="${workId}"]`).waitFor();
    await imagesLoaded(page);
    await shot(page, 'search');
  });

  test('B likes, comments and follows A; A is notified over the socket', async () => {
    const b = users.b.page;
    const a = users.a.page;
    await a.goto(new URL('/en/', backend.url).href);
    await online(a);
    await a.getByTestId('bell').waitFor();
    assert.equal(await a.getByTestId('bell-count').count(), 0, 'nothing unread yet');

    await b.locator(`[data-testid="work-card"][data-id="${workId}"] .sq-card__title`).click();
    const work = b.getByTestId('work-page');
    await work.getByRole('heading', { name: TITLE }).waitFor();
    const like = work.getByTestId('like-button');
    await like.click();
    await work.locator('[data-testid="like-button"][aria-pressed="true"]').waitFor();
    assert.equal(await like.getByTestId('like-count').textContent(), '1');

    const form = work.getByTestId('comment-form');
    await form.getByRole('textbox').fill(COMMENT);
    await form.getByRole('button', { name: 'Comment' }).click();
    await work.getByTestId('comment-text').filter({ hasText: COMMENT }).waitFor();

    await work.getByTestId('follow-button').click();
    await work.locator('[data-testid="follow-button"][aria-pressed="true"]').waitFor();

    // A's bell counts three pushes (like, comment, follow) without a reload.
    await a.getByTestId('bell-count').filter({ hasText: /^3$/ }).waitFor();
    await a.getByTestId('bell').click();
    const list = a.getByTestId('notifications');
    await list.getByText(`Bea Viewer commented: ${COMMENT}`).waitFor();
    await list.getByText('Bea Viewer followed you').waitFor();
    await list.getByText(`Bea Viewer liked "${TITLE}"`).waitFor();
    await a.getByTestId('bell-count').waitFor({ state: 'detached' });
    await list.getByText(`Bea Viewer liked "${TITLE}"`).click();
    await a.waitForURL(new RegExp(`/en/artWorkDetail/${workId}$`));
    await a.getByTestId('work-page').getByTestId('comment-text').filter({ hasText: COMMENT }).waitFor();

    // B's view of the work with the like, the comment and the follow.
    await b.evaluate(() => window.scrollTo(0, 0));
    await imagesLoaded(b);
    await shot(b, 'artwork');
  });

  test("A's profile shows the work and B as a follower", async () => {
    const b = users.b.page;
    await b.goto(new URL(`/en/user/${users.a.id}`, backend.url).href);
    const profile = b.getByTestId('profile');
    await profile.getByRole('heading', { name: 'Ada Painter' }).waitFor();
    await profile.locator(`[data-testid="work-card"][data-id="${workId}"]`).waitFor();
    await profile.locator('[data-testid="follow-button"][aria-pressed="true"]').waitFor();
    assert.equal(await profile.getByTestId('followers-count').textContent(), '1');
    await imagesLoaded(b);
    await shot(b, 'profile');
    await profile.getByRole('link', { name: 'Followers', exact: true }).click();
    await profile.getByTestId('account-row').filter({ hasText: 'Bea Viewer' }).waitFor();
  });

  test('at 390 px the grid has at most two columns and the work page fits', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    await context.addCookies([{ name: 'T', value: users.b.token, url: backend.url, sameSite: 'Lax' }]);
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('pageerror', (e) => pageProblems.push(`phone pageerror: ${e.message}`));
    await page.goto(new URL('/en/', backend.url).href);
    const grid = page.getByTestId('feed-grid');
    await grid.locator(`[data-testid="work-card"][data-id="${workId}"]`).waitFor();
    const columns = Number(await grid.getAttribute('data-columns'));
    assert.ok(columns >= 1 && columns <= 2, `columns at 390 px: ${columns}`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no sideways scrolling (${overflow} px)`);
    await imagesLoaded(page);
    await shot(page, 'square-phone');

    await page.goto(new URL(`/en/artWorkDetail/${workId}`, backend.url).href);
    await page.getByTestId('work-page').getByRole('heading', { name: TITLE }).waitFor();
    const overflow2 = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow2 <= 0, `no sideways scrolling on the work page (${overflow2} px)`);
    await imagesLoaded(page);
    // The title, author and reactions come under the pictures on a phone.
    await page.getByTestId('work-page').locator('.work__side').scrollIntoViewIfNeeded();
    await shot(page, 'artwork-phone');
    await context.close();
    assert.deepEqual(pageProblems, []);
  });
});
