// Browser test of NSFW ratings (issue 20): with the operator's threshold at
// 0 every picture the classifier scores is rated NSFW, so a work posted from
// a task is NSFW even though its author did not mark it. A visitor sees its
// card blurred with the rating and a Show control that reveals it; mode
// "Hide" (a visitor's, kept in the browser) makes the server leave it out of
// the feed; a signed-in viewer's "Hide" is the account's setting, so another
// browser of theirs gets no NSFW card from the server; the work page shows
// the rating.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { apiPost, pictureTask, signUp, until } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WAIT_MS = 30_000;
const MODEL = process.env.EASEL_NSFW_MODEL_PATH ?? path.join(WEB_DIR, '..', 'models', 'open-nsfw.onnx');

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
let workId = '';

describe('NSFW: the classifier rates, visitors see a blur they can lift', { timeout: 240_000 }, () => {
  before(async () => {
    backend = await startBackend({
      env: { EASEL_REFERENCE_STEP_MS: '5', EASEL_SQUARE_RANK_MS: '200', EASEL_NSFW_MODEL_PATH: MODEL, EASEL_NSFW_THRESHOLD: '0', EASEL_NSFW_SUGGESTIVE: '0' },
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    const author = await signUp(backend.url, { prefix: 'nsfw-author', password: 'nsfw-test-author-1', name: 'Nia Author' });
    const post = (p, body) => apiPost(backend.url, p, body, author.token);
    const task = await pictureTask(post, 'a harbour at noon', 3);
    const { id } = task;
    assert.equal(task.nsfw, true, 'threshold 0 rates every scored output NSFW');
    assert.equal(task.outputs[0].rating, 'nsfw');
    ({ id: workId } = await post('/api/v1/post/portfolio/add_v2', { task_ids: [id], title: 'Harbour', visibility: 'public', nsfw: false }));
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await backend?.stop();
    }
  });

  test('a visitor sees the card blurred with its rating, and Show reveals it', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    await page.goto(new URL('/en/', backend.url).href);
    const card = page.locator(`[data-testid="work-card"][data-id="${workId}"]`);
    await card.waitFor();
    const img = card.locator('img').first();
    assert.equal(await img.getAttribute('class'), 'sq-blur');
    await card.getByTestId('nsfw-badge').waitFor();
    assert.equal(await card.getByTestId('nsfw-badge').textContent(), 'NSFW');
    await card.getByTestId('nsfw-reveal').click();
    await card.getByTestId('nsfw-reveal').waitFor({ state: 'detached' });
    assert.equal(await img.getAttribute('class'), null);
    // The badge stays: the rating shows whatever the viewer chose.
    await card.getByTestId('nsfw-badge').waitFor();

    // A visitor may blur or hide, never show (showing needs an account).
    const modes = await page.getByTestId('nsfw-mode').first().locator('option').evaluateAll((os) => os.map((o) => o.value));
    assert.deepEqual(modes, ['blur', 'hide']);
    // Mode "Hide": the server leaves the work out of the feed, kept across a reload.
    const hidden = page.waitForResponse((r) => r.url().includes('/square/v3/recommend') && r.request().postDataJSON()?.nsfw_mode === 'hide');
    await page.getByTestId('nsfw-mode').first().selectOption('hide');
    const answer = await (await hidden).json();
    assert.ok(!answer.data.items.some((c) => c.id === workId), 'the server answered the NSFW card');
    await card.waitFor({ state: 'detached' });
    await page.reload();
    await page.getByTestId('nsfw-mode').first().waitFor();
    assert.equal(await page.getByTestId('nsfw-mode').first().inputValue(), 'hide');
    assert.equal(await card.count(), 0);
    // Back to "Blur": blurred again.
    await page.getByTestId('nsfw-mode').first().selectOption('blur');
    await card.waitFor();
    assert.equal(await card.locator('img').first().getAttribute('class'), 'sq-blur');
    await context.close();
  });

  test('a signed-in viewer hides NSFW works on the account: another browser of theirs gets none', async () => {
    const viewer = await signUp(backend.url, { prefix: 'nsfw-viewer', password: 'nsfw-test-viewer-1', name: 'Vic Viewer' });
    const open = async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addCookies([{ name: 'T', value: viewer.token, url: backend.url, sameSite: 'Lax' }]);
      const page = await context.newPage();
      page.setDefaultTimeout(WAIT_MS);
      return { context, page };
    };
    const a = await open();
    await a.page.goto(new URL('/en/', backend.url).href);
    const cardA = a.page.locator(`[data-testid="work-card"][data-id="${workId}"]`);
    await cardA.waitFor();
    // An account may also choose show.
    const modes = await a.page.getByTestId('nsfw-mode').first().locator('option').evaluateAll((os) => os.map((o) => o.value));
    assert.deepEqual(modes, ['blur', 'hide', 'show']);
    const saved = a.page.waitForResponse((r) => r.url().endsWith('/api/v1/account/profile/edit'));
    await a.page.getByTestId('nsfw-mode').first().selectOption('hide');
    assert.equal((await (await saved).json()).data.nsfw_mode, 'hide');
    await cardA.waitFor({ state: 'detached' });

    // A second browser (no localStorage of the first) is served by the account's setting.
    const b = await open();
    const feed = b.page.waitForResponse((r) => r.url().includes('/square/v3/recommend'));
    await b.page.goto(new URL('/en/', backend.url).href);
    const items = (await (await feed).json()).data.items;
    assert.ok(!items.some((c) => c.nsfw), `the server answered NSFW cards: ${JSON.stringify(items.map((c) => c.id))}`);
    await b.page.getByTestId('nsfw-mode').first().waitFor();
    await until(b.page, 'the account mode', async () => (await b.page.getByTestId('nsfw-mode').first().inputValue()) === 'hide', WAIT_MS);
    assert.equal(await b.page.locator(`[data-testid="work-card"][data-id="${workId}"]`).count(), 0);
    await a.context.close();
    await b.context.close();
  });

  test('the work page blurs for a visitor and shows the rating', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    await page.goto(new URL(`/en/artWorkDetail/${workId}`, backend.url).href);
    const img = page.getByTestId('work-image').first();
    await img.waitFor();
    assert.equal(await img.getAttribute('class'), 'sq-blur');
    assert.match((await page.getByTestId('work-rating').textContent()) ?? '', /NSFW/);
    await page.getByTestId('nsfw-reveal').click();
    await page.getByTestId('nsfw-reveal').waitFor({ state: 'detached' });
    assert.equal(await img.getAttribute('class'), null);
    await context.close();
  });
});
