/* global document, window, MutationObserver -- page.evaluate callbacks run in the browser */
// Browser test of the video editor against the real backend binary and real
// Chromium: a signed-up user makes two short videos (text to video over the
// API), opens the editor from the video page, uploads the first video's MP4
// and a WAV tone (the media bin's chunked upload), adds the second video
// "From my videos", puts both on the timeline, trims one, moves a clip and
// undoes it, picks the tone as music at a lower volume, sees every change
// saved (workspace/edit and the operation log), renames the workspace,
// exports, sees the progress bar, and the result plays in the video page's
// player with the timeline's length. The Chinese page shows its texts.
// Screenshot: docs/screenshots/editor.png.
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
const RENDER_MS = 180_000;
const EDITOR = '/api/v1/task/v2/video/editor';

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {import('playwright-core').Page} */
let page;
let token = '';
const pageProblems = [];

const post = (pathname, body) => apiPost(backend.url, pathname, body ?? {}, token);

async function shot(name) {
  const size = page.viewportSize() ?? { width: 1280, height: 900 };
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: size.width, height: Math.max(size.height, height) });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  await page.setViewportSize(size);
}

/** A mono 16-bit PCM WAV of a 440 Hz tone. */
function toneWav(seconds, rate = 16_000) {
  const n = seconds * rate;
  const buf = Buffer.alloc(44 + n * 2);
  buf.write('RIFF', 0);
  buf.writeUInt32LE(36 + n * 2, 4);
  buf.write('WAVE', 8);
  buf.write('fmt ', 12);
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(1, 22);
  buf.writeUInt32LE(rate, 24);
  buf.writeUInt32LE(rate * 2, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36);
  buf.writeUInt32LE(n * 2, 40);
  for (let i = 0; i < n; i++) buf.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000), 44 + i * 2);
  return buf;
}

/** Starts a short text-to-video task with a model that makes one from a prompt; answers its id. */
async function makeVideo(prompt) {
  const params = await post('/api/v1/task/v2/video/model-gen-param');
  const model = params.items.find((m) => m.text_to_video && m.quality_modes.length === 0 && m.family !== 'stream' && !m.model_no.startsWith('kl_'));
  assert.ok(model, `a text-to-video model: ${params.items.map((m) => m.model_no).join(',')}`);
  const size = model.resolution_param.dft_resolution ?? model.resolution_param.options[0];
  const duration = Math.min(...model.duration_ctl.options);
  const { id } = await post('/api/v1/task/v2/video/text-to-video', {
    model_no: model.model_no,
    model_ver_no: model.model_no,
    meta: {
      prompt,
      width: size.width,
      height: size.height,
      aspect_ratio: size.aspect_ratio,
      n_iter: 1,
      generate: { gen_mode: 0 },
      generate_video: { generate_video_duration: duration, image_opts: [] },
      task_from: 'web',
    },
  });
  return id;
}

async function finished(id) {
  const deadline = Date.now() + RENDER_MS;
  while (Date.now() < deadline) {
    const task = (await post('/api/v1/task/batch-progress', { task_ids: [id] })).items[0];
    if (task?.status === 3) return task;
    assert.notEqual(task?.status, 4, `task ${id} failed: ${JSON.stringify(task)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.fail(`task ${id} did not finish`);
}

describe('video editor against the real backend', { timeout: 600_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend({ env: { EASEL_REFERENCE_STEP_MS: '5' } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--autoplay-policy=no-user-gesture-required'],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    ({ token } = await signUp(backend.url, { prefix: 'editor', password: 'editor-test-1', name: 'Editor Tester' }));
    await context.addCookies([{ name: 'T', value: token, url: backend.url }]);
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

  test('two videos on the timeline, trimmed, with music: saved, exported with progress, and the result plays', async () => {
    const [first, second] = await Promise.all([finished(await makeVideo('a red kite over the dunes')), finished(await makeVideo('rain on a tin roof'))]);
    assert.equal(first.video_uris.length, 1);
    assert.equal(second.video_uris.length, 1);

    // The video page links to the editor.
    await page.goto(new URL('/en/create/video', backend.url).href);
    await page.getByTestId('account-name').filter({ hasText: 'Editor Tester' }).waitFor();
    await page.getByRole('link', { name: 'Editor', exact: true }).click();
    await page.waitForURL(/\/en\/create\/video\/editor$/);
    await page.getByRole('heading', { name: 'Video editor', level: 1 }).waitFor();

    // No workspace yet: make one.
    await page.getByRole('button', { name: 'New workspace' }).first().click();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    const workspaces = await post(`${EDITOR}/workspace/list`, {});
    assert.equal(workspaces.items.length, 1);
    const wsId = workspaces.items[0].workspace_id;

    // Upload the first video's MP4 and a tone through the media bin.
    const mp4 = Buffer.from(await (await fetch(new URL(first.video_uris[0], backend.url))).arrayBuffer());
    const bin = page.getByRole('complementary', { name: 'Media' });
    const upload = bin.getByLabel('Upload a video or audio file');
    await upload.setInputFiles({ name: 'kite.mp4', mimeType: 'video/mp4', buffer: mp4 });
    const kite = bin.locator('[data-testid="material"]').filter({ hasText: 'kite.mp4' });
    await kite.waitFor();
    assert.equal(await kite.getAttribute('data-kind'), 'video');
    await upload.setInputFiles({ name: 'tone.wav', mimeType: 'audio/wav', buffer: toneWav(4) });
    const tone = bin.locator('[data-testid="material"]').filter({ hasText: 'tone.wav' });
    await tone.waitFor();
    assert.equal(await tone.getAttribute('data-kind'), 'audio');

    // The second video from "From my videos".
    const mine = bin.locator(`[data-testid="my-video"][data-task-id="${second.id}"]`);
    await mine.getByRole('button', { name: 'Add to media' }).click();
    const rain = bin.locator('[data-testid="material"][data-kind="video"]').filter({ hasNotText: 'kite.mp4' });
    await rain.waitFor();
    const materials = (await post(`${EDITOR}/material/list`, {})).items;
    assert.equal(materials.length, 3, JSON.stringify(materials));
    const byName = (n) => materials.find((m) => m.name === n);
    const fromTask = materials.find((m) => m.source === 'task');
    assert.ok(byName('kite.mp4') && byName('tone.wav') && fromTask, JSON.stringify(materials));

    // Both on the timeline.
    await kite.getByRole('button', { name: 'Add to timeline' }).click();
    await rain.getByRole('button', { name: 'Add to timeline' }).click();
    const clips = page.locator('[data-testid="clip"]');
    await until(page, 'two clips', async () => (await clips.count()) === 2, TIMEOUT_MS);
    const full = byName('kite.mp4').duration + fromTask.duration;
    const total = page.getByTestId('timeline-total');
    assert.ok(Math.abs(Number(await total.getAttribute('data-seconds')) - full) < 0.01, `total ${await total.getAttribute('data-seconds')} vs ${full}`);

    // Trim the second clip to 0.5..1.5 s; the preview follows the selected clip's trim.
    const clip2 = clips.nth(1);
    await clip2.getByRole('button', { name: 'Preview clip 2' }).click();
    await clip2.getByLabel('Start (s)').fill('0.5');
    await clip2.getByLabel('Start (s)').press('Enter');
    await clip2.getByLabel('End (s)').fill('1.5');
    await clip2.getByLabel('End (s)').press('Enter');
    assert.equal(await clip2.getAttribute('data-start'), '0.5');
    assert.equal(await clip2.getAttribute('data-end'), '1.5');
    const preview = page.getByTestId('clip-preview');
    assert.equal(await preview.getAttribute('data-start'), '0.5');
    await until(page, 'the preview at the trim', () => preview.evaluate((v) => v.readyState >= 1 && Math.abs(v.currentTime - 0.5) < 0.05), TIMEOUT_MS);
    const trimmed = byName('kite.mp4').duration + 1;
    await until(page, 'the new total', async () => Math.abs(Number(await total.getAttribute('data-seconds')) - trimmed) < 0.01, TIMEOUT_MS);

    // A trim past the material's end is clamped to it.
    await clip2.getByLabel('End (s)').fill('999');
    await clip2.getByLabel('End (s)').press('Enter');
    assert.ok(Math.abs(Number(await clip2.getAttribute('data-end')) - fromTask.duration) < 0.001, `clamped to ${fromTask.duration}`);
    await page.getByRole('button', { name: 'Undo' }).click();
    assert.equal(await clip2.getAttribute('data-end'), '1.5');

    // Move the first clip right, then undo it.
    await clips.nth(0).getByRole('button', { name: 'Move clip 1 right' }).click();
    assert.equal(await clips.nth(0).getAttribute('data-material-id'), fromTask.material_id);
    await page.getByRole('button', { name: 'Undo' }).click();
    assert.equal(await clips.nth(0).getAttribute('data-material-id'), byName('kite.mp4').material_id);

    // The tone as music at 50 %.
    await tone.getByRole('button', { name: 'Use as music' }).click();
    const music = page.getByTestId('music-track');
    assert.equal(await music.getByLabel('Music track').inputValue(), byName('tone.wav').material_id);
    // From 100 % down in steps of 5 %.
    await music.getByRole('slider').focus();
    for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowLeft');
    await music.getByText('Volume 50%').waitFor();

    // Rename, then everything is saved.
    const name = page.getByTestId('editor-bar').getByLabel('Name');
    await name.fill('Kite and rain');
    await page.locator('[data-testid="editor-save"][data-state="saved"]').waitFor();
    const saved = await post(`${EDITOR}/detail`, { workspace_id: wsId });
    assert.equal(saved.name, 'Kite and rain');
    assert.deepEqual(
      saved.timeline.clips.map((c) => [c.material_id, c.start, c.end]),
      [
        [byName('kite.mp4').material_id, 0, byName('kite.mp4').duration],
        [fromTask.material_id, 0.5, 1.5],
      ],
    );
    assert.deepEqual(saved.timeline.music, { material_id: byName('tone.wav').material_id, start: 0, volume: 0.5 });
    assert.ok(Math.abs(saved.duration - trimmed) < 0.01, `duration ${saved.duration}`);
    const ops = saved.operations.map((o) => o.op);
    for (const op of ['addClip', 'trimClip', 'moveClip', 'undo', 'setMusic', 'musicVolume', 'rename']) assert.ok(ops.includes(op), `${op} in ${ops.join(',')}`);

    // Export: the progress bar, then the result in the player.
    await page.evaluate(() => {
      const w = /** @type {any} */ (window);
      w.__progress = [];
      w.__obs = new MutationObserver(() => {
        const bar = document.querySelector('[data-testid="export-progress"]');
        if (bar) w.__progress.push(Number(bar.getAttribute('value')));
      });
      w.__obs.observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    await page.getByRole('button', { name: 'Export video' }).click();
    const result = page.getByTestId('export-result');
    await result.waitFor({ timeout: RENDER_MS });
    const progress = await page.evaluate(() => /** @type {any} */ (window).__progress);
    assert.ok(progress.length >= 1, 'the progress bar showed');
    assert.ok(progress.every((v, i) => v >= 0 && v <= 100 && (i === 0 || v >= progress[i - 1])), `progress rises: ${progress.join(',')}`);
    const taskId = await result.getAttribute('data-task-id');
    const check = await post(`${EDITOR}/export/check`, { task_id: taskId });
    assert.equal(check.status, 'succeeded');
    assert.equal(await result.getByTestId('video-download').getAttribute('href'), check.video_url);
    const video = result.getByTestId('task-video');
    const meta = await until(
      page,
      'the result to load',
      () => video.evaluate((v) => (v.readyState >= 1 && Number.isFinite(v.duration) ? { readyState: v.readyState, duration: v.duration } : null)),
      TIMEOUT_MS,
    );
    assert.ok(Math.abs(meta.duration - trimmed) < 0.5, `the result lasts the timeline's ${trimmed} s: ${meta.duration}`);
    await video.evaluate(async (v) => {
      v.muted = true;
      await v.play();
    });
    await until(page, 'the result to play', () => video.evaluate((v) => v.currentTime > 0), 15_000);
    await video.evaluate((v) => v.pause());
    // The export is a task of the user's list.
    const listed = await post('/api/v1/task/list', { limit: 20 });
    assert.ok(listed.items.some((t) => t.id === taskId), 'the export is in the task list');
    await shot('editor');
    assert.deepEqual(pageProblems, []);
  });

  test('the Chinese editor reopens the saved workspace', async () => {
    await page.goto(new URL('/zhCN/create/video/editor', backend.url).href);
    await page.getByRole('heading', { name: '视频剪辑', level: 1 }).waitFor();
    await page.getByRole('heading', { name: '时间线' }).waitFor();
    assert.equal(await page.getByTestId('editor-bar').getByLabel('名称').inputValue(), 'Kite and rain');
    assert.equal(await page.locator('[data-testid="clip"]').count(), 2);
    await page.getByRole('button', { name: '导出视频' }).waitFor();
    assert.deepEqual(pageProblems, []);
  });
});
