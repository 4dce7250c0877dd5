// Browser test of NSFW ratings (issue 20): with the operator's threshold at
// 0 every picture the classifier scores is rated NSFW, so a work posted from
// a task is NSFW even though its author did not mark it. A visitor sees its
// card blurred with the rating and a Show control that reveals it; mode
// "Hide" leaves it out of the feed; the work page shows the rating.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { apiPost, signUp } from './helpers.mjs';

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
    const catalogue = await post('/api/v1/task/v2/config/model');
    const sd = catalogue.checkpoints.find((c) => c.family === 'sd');
    assert.ok(sd, 'an sd checkpoint');
    const { id } = await post('/api/v1/task/create', {
      action: 1,
      category: 1,
      art_model_ver_no: sd.model_ver_no,
      meta: { prompt: 'a harbour at noon', width: 512, height: 512, n_iter: 1, steps: 6, seed: 3 },
    });
    const deadline = Date.now() + 120_000;
    let task;
    for (;;) {
      task = (await post('/api/v1/task/batch-progress', { task_ids: [id] })).items[0];
      if (task.status === 3 || task.status === 4) break;
      assert.ok(Date.now() < deadline, 'the task did not finish');
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(task.status, 3, JSON.stringify(task.reason));
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

    // Mode "Hide": the work is left out of the feed.
    await page.getByTestId('nsfw-mode').first().selectOption('hide');
    await card.waitFor({ state: 'detached' });
    // Mode "Show": back, unblurred, and kept across a reload.
    await page.getByTestId('nsfw-mode').first().selectOption('show');
    await card.waitFor();
    assert.equal(await card.locator('img').first().getAttribute('class'), null);
    await page.reload();
    await card.waitFor();
    assert.equal(await card.locator('img').first().getAttribute('class'), null);
    await context.close();
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
