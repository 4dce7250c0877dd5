// Browser test of shared models against the real backend binary and real
// Chromium (issue 19, "Done means"): a creator uploads a tiny SD 1.5 LoRA
// (a real safetensors file with kohya metadata, made here) through the
// upload wizard and sees its progress, sees what the server read from it
// (type, family, SHA-256, AutoV2, trigger words), sets a fee and publishes
// it; a pickle file named .safetensors is refused with the server's key.
// Another user finds the LoRA in the models feed with the modelType and
// baseModels filters, opens it, uses it in the generator (the LoRA is
// chosen on an SD checkpoint and the prompt starts with its trigger words),
// and the text-to-image task succeeds; the creator then sees the fee in
// their earnings. The user posts the picture and comments on the model; the
// creator sees the comment (and its notification) and the model page's
// "Made with this model" gallery shows the posted work.
// Screenshots: docs/screenshots/models-*.png.
/* global document, window, MutationObserver -- used inside page.evaluate callbacks */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import * as h from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(WEB_DIR, '..', 'docs', 'screenshots');
const WAIT_MS = 30_000;
const FEE = 3;
const NAME = 'Red Harbour';

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {import('playwright-core').Page} */
let creatorPage;
/** @type {import('playwright-core').Page} */
let userPage;
let creatorToken = '';
let userToken = '';
const lora = h.tinyLora('red_harbour', { '10_ezlharbour': { ezlharbour: 24, harbour: 20, boats: 6, 'red sky': 3 } });
const sha256 = createHash('sha256').update(lora).digest('hex');
/** What the wizard made: {modelId, verNo}, and the user's task with it. */
const made = { modelId: '', verNo: '', taskId: '' };
const COMMENT = 'The red sky works well at weight 0.7';
const pageProblems = [];

const at = (p) => new URL(p, backend.url).href;
const post = (pathname, body, token) => h.apiPost(backend.url, pathname, body, token);

async function newPage(token) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addCookies([{ name: 'T', value: token, url: backend.url, sameSite: 'Lax' }]);
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  page.on('pageerror', (e) => pageProblems.push(`pageerror: ${e.message}`));
  return page;
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(SHOTS, `models-${name}.png`), fullPage: true });
}

describe('shared models: upload, publish, find, generate, earn', { timeout: 600_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    creatorToken = (await h.signUp(backend.url, { prefix: 'creator', password: 'models-e2e-pass-1', name: 'Cora' })).token;
    userToken = (await h.signUp(backend.url, { prefix: 'user', password: 'models-e2e-pass-2', name: 'Uli' })).token;
    creatorPage = await newPage(creatorToken);
    userPage = await newPage(userToken);
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await backend?.stop();
    }
    assert.deepEqual(pageProblems, []);
  });

  test('a pickle file named .safetensors is refused with the server’s key', async () => {
    const page = creatorPage;
    await page.goto(at('/en/models/new'));
    await h.online(page);
    // Protocol 2 pickle opcodes, as torch.save writes them.
    const pickle = Buffer.concat([Buffer.from([0x80, 0x02, 0x7d, 0x71, 0x00]), Buffer.from('X\x0b\x00\x00\x00state_dict'), Buffer.alloc(4096, 0x2e)]);
    await page.getByTestId('wizard-file').setInputFiles({ name: 'evil.safetensors', mimeType: 'application/octet-stream', buffer: pickle });
    const error = page.getByTestId('wizard-error').filter({ hasText: /./ });
    await error.waitFor();
    assert.equal(await error.getAttribute('data-key'), 'modelFilePickle');
    assert.equal(await error.textContent(), 'Pickle model files (.ckpt, .pt) can run code and are refused. Please upload the .safetensors version.');
    assert.equal(await page.getByTestId('model-wizard').getAttribute('data-step'), 'choose');
  });

  test('the creator uploads a LoRA with progress, sees what the server read, sets a fee and publishes it', async () => {
    const page = creatorPage;
    await page.goto(at('/en/models/new'));
    // Record every step and progress value the wizard shows.
    await page.evaluate(() => {
      const w = /** @type {any} */ (window);
      w.__wizard = [];
      const record = () => {
        const root = document.querySelector('[data-testid="model-wizard"]');
        const bar = document.querySelector('[data-testid="wizard-progress"]');
        const text = document.querySelector('[data-testid="wizard-progress-text"]')?.textContent ?? '';
        const entry = `${root?.getAttribute('data-step')}|${bar?.getAttribute('data-percent') ?? ''}|${text}`;
        if (w.__wizard[w.__wizard.length - 1] !== entry) w.__wizard.push(entry);
      };
      new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    await page.getByTestId('wizard-file').setInputFiles({ name: 'red_harbour.safetensors', mimeType: 'application/octet-stream', buffer: lora });
    const detected = page.getByTestId('wizard-detected');
    await detected.waitFor();
    const steps = await page.evaluate(() => /** @type {any} */ (window).__wizard);
    const uploading = steps.filter((s) => s.startsWith('uploading|'));
    assert.ok(uploading.length > 0, `the upload showed its progress: ${JSON.stringify(steps)}`);
    const percents = uploading.map((s) => Number(s.split('|')[1]));
    assert.deepEqual(percents, [...percents].sort((a, b) => a - b), 'progress only grows');
    assert.ok(uploading.some((s) => s.includes('Uploading…') || s.includes('Checking the file')), JSON.stringify(uploading));
    // What the server read from the file.
    assert.equal(await page.getByTestId('wizard-detected-type').textContent(), 'LoRA');
    assert.equal(await page.getByTestId('wizard-detected-family').getAttribute('data-family'), 'sd');
    assert.equal((await page.getByTestId('wizard-sha256').textContent()).replaceAll(' ', ''), sha256);
    assert.equal(await page.getByTestId('wizard-autov2').textContent(), sha256.slice(0, 10).toUpperCase());
    const form = page.getByTestId('wizard-form');
    assert.equal(await form.getByLabel('Base model').inputValue(), 'sd');
    assert.match(await form.getByLabel('Trigger words').inputValue(), /^ezlharbour, harbour/);
    await form.getByLabel('Name', { exact: true }).fill(NAME);
    await form.getByLabel('Description').fill('Red evening light over a fishing harbour.');
    await form.getByLabel('Tags').fill('harbour, sunset');
    await page.getByTestId('wizard-fee-on').check();
    await form.getByLabel('Fee (credits per generation)').fill(String(FEE));
    await shot(page, 'upload');
    const created = page.waitForResponse((r) => r.url().endsWith('/api/v1/resource/createModel'));
    await page.getByTestId('wizard-publish').click();
    const answer = await (await created).json();
    assert.equal(answer.status.code, h.OK, JSON.stringify(answer.status));
    assert.equal(answer.data.sha256, sha256);
    made.modelId = answer.data.model_id;
    made.verNo = answer.data.model_ver_no;
    await page.getByTestId('wizard-done').filter({ hasText: 'Your model is published' }).waitFor();
    await page.getByTestId('wizard-open').click();
    await page.getByTestId('model-detail').waitFor();
    assert.equal(await page.getByTestId('model-name').textContent(), NAME);
    assert.equal(await page.getByTestId('model-status').textContent(), 'Published');
    assert.equal((await page.getByTestId('model-sha256').textContent()).replaceAll(' ', ''), sha256);
    await page.getByTestId('model-fee').filter({ hasText: `pays its creator ${FEE} credits` }).waitFor();
    await page.getByTestId('model-words').getByText('ezlharbour', { exact: true }).waitFor();
  });

  test('another user finds it in the models feed with the filters, opens it and generates with it', async () => {
    const page = userPage;
    await page.goto(at('/en/models'));
    await h.online(page);
    await page.getByTestId('models-type-lora').click();
    await page.getByTestId('models-base-sd').click();
    await page.waitForURL(/\/en\/models\?type=lora&base=sd$/);
    const card = page.getByTestId('model-card').filter({ hasText: NAME });
    await card.waitFor();
    // The other family hides it.
    await page.getByTestId('models-base-sd').click();
    await page.getByTestId('models-base-sdxl').click();
    await h.until(page, 'the SDXL filter to hide the SD LoRA', async () => (await page.getByTestId('models-feed').getAttribute('aria-busy')) === 'false' && (await card.count()) === 0, 15000);
    await page.getByTestId('models-base-sdxl').click();
    await page.getByTestId('models-base-sd').click();
    await card.waitFor();
    await shot(page, 'feed');
    await card.getByRole('link').click();
    await page.getByTestId('model-detail').waitFor();
    await page.getByTestId('model-file-size').waitFor();
    await page.getByTestId('model-use').click();
    await page.waitForURL((u) => u.pathname === '/en/create/image' && u.searchParams.get('model_ver_no') === made.verNo);
    const picker = page.getByTestId('lora-picker');
    await picker.locator('.gen-loras__name').filter({ hasText: NAME }).waitFor();
    const panel = page.getByRole('tabpanel');
    const prompt = panel.getByLabel('Prompt', { exact: true });
    assert.match(await prompt.inputValue(), /^ezlharbour/);
    await prompt.fill(`${await prompt.inputValue()}, a fishing harbour at dusk`);
    const request = page.waitForRequest((r) => r.url().endsWith('/api/v1/task/v2/text-to-img') && r.method() === 'POST');
    const response = page.waitForResponse((r) => r.url().endsWith('/api/v1/task/v2/text-to-img') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    const sent = JSON.parse((await request).postData() ?? '{}');
    assert.deepEqual(
      sent.meta.lora_models.map((l) => l.model_ver_no),
      [made.verNo],
      'the task names the shared LoRA',
    );
    const body = await (await response).json();
    assert.equal(body.status.code, h.OK, JSON.stringify(body.status));
    const task = await h.taskEnd((p, b) => post(p, b, userToken), body.data.id, 90_000);
    assert.equal(task.status, 3, `the task succeeds: ${JSON.stringify(task)}`);
    made.taskId = body.data.id;
    await page.locator(`[data-testid="task-card"][data-task-id="${body.data.id}"]`).locator('[data-testid="task-image"]').first().waitFor({ timeout: 60_000 });
    await shot(page, 'generate');
  });

  test('the creator sees the earning', async () => {
    const page = creatorPage;
    await page.goto(at('/en/models/my'));
    const total = page.getByTestId('models-earnings-total');
    // The fee is credited when the task's success is settled: reload until it shows.
    const deadline = Date.now() + 60_000;
    for (;;) {
      await page.getByTestId('models-earnings').waitFor();
      if ((await total.count()) === 1 && (await total.textContent()) === String(FEE)) break;
      assert.ok(Date.now() < deadline, `the earning shows: ${await page.getByTestId('models-earnings').textContent()}`);
      await page.waitForTimeout(1_000);
      await page.reload();
    }
    await page.getByTestId('models-earnings-row').filter({ hasText: NAME }).waitFor();
    await page.getByTestId('my-model').filter({ hasText: NAME }).getByTestId('my-model-status').filter({ hasText: 'Published' }).waitFor();
    await shot(page, 'my');
  });
  test('the user posts the picture and comments; the creator sees the comment and the work in the model’s gallery', async () => {
    const page = userPage;
    const work = await post('/api/v1/post/portfolio/add_v2', { task_ids: [made.taskId], title: 'Harbour at dusk', visibility: 'public' }, userToken);
    await page.goto(at(`/en/models/detail/${made.modelId}`));
    await h.online(page);
    const gallery = page.getByTestId('model-works');
    await gallery.locator(`[data-testid="work-card"][data-id="${work.id}"]`).waitFor();
    const form = page.getByTestId('comments').getByTestId('comment-form');
    await form.getByRole('textbox').fill(COMMENT);
    await form.getByRole('button', { name: 'Comment' }).click();
    await page.getByTestId('comment-text').filter({ hasText: COMMENT }).waitFor();

    const creator = creatorPage;
    await creator.goto(at(`/en/models/detail/${made.modelId}`));
    await h.online(creator);
    await creator.getByTestId('comments').getByTestId('comment-text').filter({ hasText: COMMENT }).waitFor();
    await creator.getByTestId('comments').getByText('Comments (1)').waitFor();
    const card = creator.getByTestId('model-works').locator(`[data-testid="work-card"][data-id="${work.id}"]`);
    await card.waitFor();
    // The comment's notification leads to the model.
    await creator.getByTestId('bell').click();
    await creator.getByTestId('notifications').getByText(`Uli commented: ${COMMENT}`).waitFor();
    await creator.getByTestId('bell').click();
    await creator.getByTestId('notifications').waitFor({ state: 'detached' });
    await shot(creator, 'detail');
    // The card opens the work.
    await card.locator('.sq-card__title').click();
    await creator.waitForURL(new RegExp(`/en/artWorkDetail/${work.id}$`));
  });
});
