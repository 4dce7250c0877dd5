/* global document, window -- page.evaluate callbacks run in the browser */
// Browser test of the generator workspace against the real backend binary
// and real Chromium: a visitor sees only the starter tab (another tab opens
// the login popup); a signed-up user gets the PromptNotEmpty message for an
// empty prompt, then generates a text-to-image task that the task panel
// follows to success with its image; image-to-image with an uploaded image
// and a painted mask; a free user adding a fourth LoRA gets the limit dialog
// and cannot generate. Screenshots go to docs/screenshots/.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { apiPost, signUp, taskEnd } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(WEB_DIR, '..', 'docs', 'screenshots');
const TIMEOUT_MS = 20_000;
/** Texts of en.ts / en.generator.ts the page must show. */
const TEXT = {
  promptNotEmpty: 'Please enter a prompt.',
  createSuccess: 'Task created. It appears in your task list.',
  loraLimit: 'Free accounts can use at most 3 LoRA models. Upgrade to use more.',
  loginTitle: 'Log in to Easel',
};

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {import('playwright-core').BrowserContext} */
let context;
/** @type {import('playwright-core').Page} */
let page;
/** The signed-up user's token. */
let token = '';
/** Uncaught page errors and CSP reports seen by the browser. */
const pageProblems = [];

/** A whole-page screenshot taken with a viewport as tall as the page, so the sticky header stays on top. */
async function shot(name) {
  const size = page.viewportSize() ?? { width: 1280, height: 900 };
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: size.width, height: Math.max(size.height, height) });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  await page.setViewportSize(size);
}

/** An API call as the signed-up user, asserting it succeeds; answers its data. */
const post = (pathname, body) => apiPost(backend.url, pathname, body, token);

function tab(name) {
  return page.getByRole('tab', { name, exact: false });
}

function generateButton() {
  return page.getByRole('button', { name: 'Generate', exact: true });
}

/** Clicks Generate and answers the id of the task the server accepted. */
async function generateAndGetId(callPath) {
  const response = page.waitForResponse((r) => r.url().endsWith(callPath) && r.request().method() === 'POST');
  await generateButton().click();
  const body = await (await response).json();
  assert.equal(body.status.code, 10000, JSON.stringify(body.status));
  return body.data.id;
}

describe('generator workspace against the real backend', { timeout: 240_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
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
    }
  });

  test('a visitor sees only the starter tab; another tab opens the login popup', async () => {
    await page.goto(new URL('/en/create', backend.url).href);
    const starter = tab('Starter');
    await starter.waitFor();
    assert.equal(await starter.getAttribute('aria-selected'), 'true');
    // Every other tab is locked for a visitor.
    const locked = page.locator('.gen-tabs__tab--locked');
    assert.equal(await locked.count(), 11);
    await page.getByTestId('engine-note').filter({ hasText: 'non-neural' }).waitFor();
    const prompt = page.getByRole('tabpanel').getByLabel('Prompt');
    await page.getByText('Visitors get a few free pictures a day.').waitFor();
    await prompt.fill('a watercolour fox in a snowy forest');
    // With a prompt the estimate answers the visitor's free quota.
    await page.getByText('Free pictures left today: 5').waitFor();
    await shot('generator-visitor');

    await tab('Text to image').click();
    const dialog = page.getByRole('dialog', { name: TEXT.loginTitle });
    await dialog.waitFor();
    assert.equal(await tab('Starter').getAttribute('aria-selected'), 'true', 'the starter tab stays open');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  test('a signed-up user: PromptNotEmpty, then a text-to-image task runs to its image', async () => {
    ({ token } = await signUp(backend.url, { prefix: 'gen', password: 'generator-test-1', name: 'Gen Tester' }));
    await context.addCookies([{ name: 'T', value: token, url: backend.url }]);
    await page.goto(new URL('/en/create', backend.url).href);
    await page.getByTestId('account-name').filter({ hasText: 'Gen Tester' }).waitFor();

    await tab('Text to image').click();
    const panel = page.getByRole('tabpanel');
    await panel.getByRole('heading', { name: 'Text to image' }).waitFor();
    assert.equal(await panel.getByLabel('Base model').inputValue(), 'sd15-v1');
    await generateButton().click();
    const problem = page.getByTestId('gen-problem');
    await problem.waitFor();
    assert.equal(await problem.textContent(), TEXT.promptNotEmpty);
    assert.equal(await problem.getAttribute('data-key'), 'PromptNotEmpty');

    await panel.getByLabel('Prompt', { exact: true }).fill('a red lighthouse on a cliff by the sea at sunset');
    await page.getByTestId('gen-cost').filter({ hasText: /Costs \d+ credits/ }).waitFor();
    await page.getByTestId('gen-balance').filter({ hasText: 'Balance: 200 credits' }).waitFor();
    const id = await generateAndGetId('/api/v1/task/v2/text-to-img');
    await page.getByRole('status').filter({ hasText: TEXT.createSuccess }).waitFor();

    // The task panel (live task list) shows the new task and follows it to its image.
    const card = page.locator(`[data-testid="task-card"][data-task-id="${id}"]`);
    await card.waitFor();
    const task = await taskEnd(post, id);
    assert.equal(task.status, 3, `task ended: ${JSON.stringify(task)}`);
    assert.equal(task.img_uris.length, 2, 'a free user makes 2 images by default');
    await card.locator('[data-testid="task-image"]').first().waitFor({ timeout: 30_000 });
    await page.getByTestId('gen-balance').filter({ hasNotText: 'Balance: 200 credits' }).waitFor();
    await shot('generator');
  });

  // Skipped at the stop of 2026-11-27: after the issue-22 merges the mask's upload (category 46) is
  // never requested in this run; to investigate first thing next session (see the stop note).
  test('image to image: upload an image with progress, paint a mask, generate', async () => {
    // The input is the picture the previous task made (fetched from /files/).
    const list = await post('/api/v1/task/list', { limit: 1 });
    const uri = list.items[0].img_uris[0];
    const png = Buffer.from(await (await fetch(new URL(uri, backend.url))).arrayBuffer());

    await tab('Image to image').click();
    const panel = page.getByRole('tabpanel');
    await panel.getByLabel('Image', { exact: true }).setInputFiles({ name: 'lighthouse.png', mimeType: 'image/png', buffer: png });
    const canvas = page.getByTestId('mask-canvas');
    await canvas.waitFor();
    // The mouse paints at page coordinates: the canvas must be on screen.
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    assert.ok(box);
    const maskUpload = page.waitForResponse(async (r) => {
      if (!r.url().endsWith('/api/v1/resource/pre-sign/get')) return false;
      return JSON.parse(r.request().postData() ?? '{}').category === 46;
    });
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.3);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.7, box.y + box.height * 0.6, { steps: 8 });
    await page.mouse.up();
    await maskUpload;
    await panel.getByLabel('Prompt', { exact: true }).fill('a lighthouse under a starry sky');
    await page.waitForFunction(() => !document.querySelector('.gen-mask progress'));
    const id = await generateAndGetId('/api/v1/task/v2/img-to-img');
    await page.getByRole('status').filter({ hasText: TEXT.createSuccess }).waitFor();
    const task = await taskEnd(post, id);
    assert.equal(task.status, 3, `task ended: ${JSON.stringify(task)}`);
    assert.equal(task.type, 9);
  });

  test('a free user adding a fourth LoRA gets the limit dialog and cannot generate', async () => {
    await tab('Text to image').click();
    const panel = page.getByRole('tabpanel');
    // SDXL has four LoRAs in the catalogue.
    await panel.getByLabel('Base model').selectOption('sdxl-base-1.0');
    const add = panel.getByLabel('Add a LoRA');
    for (let i = 0; i < 3; i++) await add.selectOption({ index: 1 });
    assert.equal(await page.getByRole('dialog').count(), 0, 'three LoRAs are allowed');
    await add.selectOption({ index: 1 });
    const dialog = page.getByRole('dialog', { name: 'LoRA limit reached' });
    await dialog.waitFor();
    assert.equal(await dialog.getByTestId('lora-limit-text').textContent(), TEXT.loraLimit);
    await shot('generator-lora-limit');
    await dialog.getByRole('button', { name: 'OK' }).click();
    await dialog.waitFor({ state: 'hidden' });

    let created = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/api/v1/task/v2/text-to-img')) created++;
    });
    await generateButton().click();
    await dialog.waitFor();
    assert.equal(await page.getByTestId('gen-problem').getAttribute('data-key'), 'LoRALimit5TipWeb');
    assert.equal(created, 0, 'generation is blocked');
    await dialog.getByRole('button', { name: 'Keep the first 3' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await panel.getByTestId('lora-picker').locator('li').count(), 3);
  });

  test('prompt studio shows the prompt editor; condition has the control-net popup', async () => {
    await tab('Prompt studio').click();
    const panel = page.getByRole('tabpanel');
    await panel.getByRole('region', { name: 'Prompt editor' }).waitFor();
    await shot('generator-prompt-studio');

    await tab('Condition to image').click();
    await panel.getByRole('button', { name: 'Set condition' }).click();
    const popup = page.getByRole('dialog', { name: 'Control-net' });
    await popup.waitFor();
    await popup.getByLabel('Preprocessor').selectOption('depth');
    assert.equal(await page.evaluate(() => window.localStorage.getItem('easel.generator.popups')), '{"controlNet":true}');
    await shot('generator-controlnet');
    await popup.getByRole('button', { name: 'Done' }).click();
    await popup.waitFor({ state: 'hidden' });
    await panel.getByText('No condition image yet.').waitFor();
    await generateButton().click();
    assert.equal(await page.getByTestId('gen-problem').getAttribute('data-key'), 'pleaseUoloadImage');
  });

  test('the workspace fits a phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await tab('Text to image').click();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`);
    await shot('generator-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test('no page errors or CSP violations happened', () => {
    assert.deepEqual(pageProblems, []);
  });
});
