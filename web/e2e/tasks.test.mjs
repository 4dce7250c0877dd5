// Browser test of the live task list and the result action bar against the
// real backend (reference engine slowed to 150 ms a step so a task takes a
// few seconds): a task created over the API appears from socket pushes and
// its progress bar rises; a reload mid-task shows the same live state and
// the task reaches success with its image; upscale in the action bar starts
// a new task that succeeds with an image twice the size. Screenshots go to
// docs/screenshots/tasks-running.png, tasks-done.png and action-bar.png.
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

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {import('playwright-core').BrowserContext} */
let context;
/** @type {import('playwright-core').Page} */
let page;
let token = '';
let taskId = '';
const pageProblems = [];

/** An API call as the signed-up user, asserting it succeeds; answers its data. Sends `{}` when there is no body. */
const post = (pathname, body) => apiPost(backend.url, pathname, body ?? {}, token);

function card(id) {
  return page.locator(`[data-testid="task-card"][data-task-id="${id}"]`);
}

async function progressOf(id) {
  const value = await card(id).locator('progress').getAttribute('value', { timeout: 1_000 }).catch(() => null);
  return value === null ? null : Number(value);
}

async function statusOf(id) {
  return card(id).getAttribute('data-status', { timeout: 1_000 }).catch(() => null);
}

/** Samples a running task's progress bar until `until(value)` holds; returns the samples. */
async function sampleProgress(id, until) {
  const seen = [];
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    const status = await statusOf(id);
    const value = await progressOf(id);
    if (value !== null && status === '2' && seen[seen.length - 1] !== value) seen.push(value);
    if (status === '3' || status === '4' || (value !== null && until(value))) return seen;
    await page.waitForTimeout(100);
  }
  return seen;
}

async function waitForStatus(id, status) {
  await card(id).and(page.locator(`[data-status="${status}"]`)).waitFor({ timeout: WAIT_MS });
}

describe('live task list and action bar against the real backend', { timeout: 240_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend({ env: { EASEL_REFERENCE_STEP_MS: '150' } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: backend.url });
    page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
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

  test('a signed-up user opens the generator and sees the task panel with credits', async () => {
    ({ token } = await signUp(backend.url, { prefix: 'tasks', password: 'live-task-list-1', name: 'Task Tester' }));
    await context.addCookies([{ name: 'T', value: token, url: backend.url, sameSite: 'Lax' }]);
    await page.goto(new URL('/en/create', backend.url).href);
    const panel = page.getByTestId('task-panel');
    await panel.waitFor();
    await online(page);
    await panel.getByText('No tasks yet', { exact: false }).waitFor();
    const credits = await post('/api/v1/payment/assets/get');
    await panel.getByTestId('task-credits').filter({ hasText: `Credits: ${credits.available}` }).waitFor();
  });

  test('a new task appears from socket pushes and its progress bar rises', async () => {
    const catalogue = await post('/api/v1/task/v2/config/model');
    const sd = catalogue.checkpoints.find((c) => c.family === 'sd');
    assert.ok(sd, 'an sd checkpoint');
    ({ id: taskId } = await post('/api/v1/task/create', {
      action: 1,
      category: 1,
      art_model_ver_no: sd.model_ver_no,
      meta: { prompt: 'a lighthouse at dusk, watercolor', width: 512, height: 512, n_iter: 1, steps: 60, seed: 7 },
    }));
    await card(taskId).waitFor();
    const seen = await sampleProgress(taskId, (v) => v >= 12);
    assert.ok(seen.length >= 2, `progress moved while running: ${seen.join(', ')}`);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i] > seen[i - 1], `progress only rises: ${seen.join(', ')}`);
    await page.screenshot({ path: path.join(SHOTS, 'tasks-running.png') });
  });

  test('after a reload mid-task the progress continues and the task succeeds with its image', async () => {
    const before = (await progressOf(taskId)) ?? 0;
    assert.equal(await statusOf(taskId), '2', 'still running before the reload');
    await page.reload();
    await card(taskId).waitFor();
    const seen = await sampleProgress(taskId, () => false);
    assert.ok(seen.every((v) => v >= before), `no step back after the reload (${before} then ${seen.join(', ')})`);
    await waitForStatus(taskId, '3');
    const img = card(taskId).getByTestId('task-image');
    await img.waitFor();
    await page.waitForFunction((el) => el.complete && el.naturalWidth > 0, await img.elementHandle());
    assert.equal(await img.evaluate((el) => el.naturalWidth), 512);
    await page.getByText('Your image is ready.').waitFor();
    // The engine is named honestly next to the result.
    await card(taskId).getByText('Made by Easel reference engine (non-neural)').waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'tasks-done.png') });
  });

  test('the action bar: upscale starts a task that succeeds with an image twice the size', async () => {
    const bar = card(taskId).getByTestId('action-bar');
    await bar.waitFor();
    // The "more" menu opens from the keyboard.
    const more = bar.getByRole('button', { name: 'More' });
    await more.focus();
    await page.keyboard.press('ArrowDown');
    const menu = bar.getByRole('menu');
    await menu.waitFor();
    // Post (the square's publish dialog, covered by square.test.mjs) is usable on one's own finished task.
    const post = menu.getByRole('menuitem', { name: /Post/ });
    assert.notEqual(await post.getAttribute('aria-disabled'), 'true');
    await menu.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, 'action-bar.png') });
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    assert.equal(await more.evaluate((el) => el === el.ownerDocument.activeElement), true, 'focus returns to More');

    const idsBefore = await page.locator('[data-testid="task-card"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-task-id')));
    await bar.getByRole('button', { name: 'Upscale ×2' }).click();
    const fresh = page.locator('[data-testid="task-card"]').first();
    await page.waitForFunction(
      ([list, known]) => {
        const first = list.querySelector('[data-testid="task-card"]');
        return first !== null && !known.includes(first.getAttribute('data-task-id'));
      },
      [await page.locator('.task-list').elementHandle(), idsBefore],
    );
    const upscaleId = await fresh.getAttribute('data-task-id');
    assert.ok(upscaleId && upscaleId !== taskId);
    await card(upscaleId).getByText('Upscale', { exact: true }).waitFor();
    await waitForStatus(upscaleId, '3');
    const img = card(upscaleId).getByTestId('task-image');
    await page.waitForFunction((el) => el.complete && el.naturalWidth > 0, await img.elementHandle());
    assert.deepEqual(await img.evaluate((el) => [el.naturalWidth, el.naturalHeight]), [1024, 1024]);
    assert.deepEqual(pageProblems, []);
  });
});
