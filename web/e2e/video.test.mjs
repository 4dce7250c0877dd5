/* global document, window -- page.evaluate callbacks run in the browser */
// Browser test of the video page against the real backend binary and real
// Chromium: a signed-up user opens /en/create/video, sees the engine named
// honestly, gets pleaseSelectImage without a picture, uploads a picture made
// with the page's canvas on the image-to-video tab, picks Flow (a model with
// camera control) and the Zoom camera move, generates, sees the task's
// progress, and the finished video plays in the task list with its poster
// (its HLS playlist natively where Chromium plays HLS, else through hls.js).
// Then the same task in a browser without native HLS plays through hls.js
// (playlists and segments fetched, the lowest level first), and with no
// hls_uris the MP4 plays directly. On the "Edit a video" tab an MP4 made
// with ffmpeg is uploaded in parts (the progress bar reaches complete, its
// cover is captured) and upscaled; the finished video's action bar runs
// frame interpolation with parent_task_id, "My videos" lists the finished
// videos (video/histories), and "Reuse" fills the form from the first task's
// create payload (get-meta-info: model, duration, camera move, prompt,
// picture). A part whose PUT keeps failing stops the upload with
// uploadError after 3 retries; "Resume" continues the same upload. Last,
// the first video is posted to the square from its result ("Post": the
// publish dialog's video mode, post/video/add), the task links to its work,
// the work page plays it (readyState >= 2) and counts one play per page view
// (ai-video/play), and another user reports it (report; one open report
// per reporter and object).
// Screenshots: docs/screenshots/video.png, video-tools.png, video-work.png.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { apiCall, apiPost, signUp, until } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(WEB_DIR, '..', 'docs', 'screenshots');
const TIMEOUT_MS = 20_000;
/** Texts of en.ts / en.video.ts the page must show. */
const TEXT = {
  pleaseSelectImage: 'Please select an image.',
  createSuccess: 'Task created. It appears in your task list.',
  started: 'New task started.',
};

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {import('playwright-core').BrowserContext} */
let context;
/** @type {import('playwright-core').Page} */
let page;
let token = '';
const pageProblems = [];
/** The finished task of the first test. */
let doneTask;

async function shot(name) {
  const size = page.viewportSize() ?? { width: 1280, height: 900 };
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: size.width, height: Math.max(size.height, height) });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  await page.setViewportSize(size);
}

/** A landscape PNG drawn with the page's canvas. */
async function landscapePng() {
  const b64 = await page.evaluate(() => {
    const c = document.createElement('canvas');
    c.width = 640;
    c.height = 360;
    const g = c.getContext('2d');
    const sky = g.createLinearGradient(0, 0, 0, 360);
    sky.addColorStop(0, '#1d3b8a');
    sky.addColorStop(1, '#f0a04c');
    g.fillStyle = sky;
    g.fillRect(0, 0, 640, 360);
    g.fillStyle = '#ffe9a8';
    g.beginPath();
    g.arc(470, 110, 48, 0, Math.PI * 2);
    g.fill();
    g.fillStyle = '#22303c';
    g.beginPath();
    g.moveTo(0, 360);
    g.lineTo(180, 170);
    g.lineTo(330, 300);
    g.lineTo(460, 210);
    g.lineTo(640, 360);
    g.fill();
    return c.toDataURL('image/png').split(',')[1];
  });
  return Buffer.from(b64, 'base64');
}

describe('video page against the real backend', { timeout: 300_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    ({ token } = await signUp(backend.url, { prefix: 'video', password: 'video-test-1', name: 'Video Tester' }));
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

  test('image to video with Flow and a Zoom camera move: generate, progress, the video plays', async () => {
    await page.goto(new URL('/en/create/video', backend.url).href);
    await page.getByTestId('account-name').filter({ hasText: 'Video Tester' }).waitFor();
    await page.getByTestId('video-engine').filter({ hasText: 'Easel reference video (non-neural)' }).waitFor();
    for (const name of ['Image to video', 'Text to video', 'Image to Live2D', 'Multi-image video', 'Effects']) {
      await page.getByRole('tab', { name, exact: true }).waitFor();
    }
    await page.getByRole('tab', { name: 'Image to video', exact: true }).click();
    const panel = page.getByRole('tabpanel');
    await panel.getByRole('heading', { name: 'Image to video' }).waitFor();

    await panel.getByLabel('Model', { exact: true }).selectOption({ label: 'Flow' });
    // Without a picture: the server's key, translated.
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    const problem = page.getByTestId('video-problem');
    await problem.waitFor();
    assert.equal(await problem.textContent(), TEXT.pleaseSelectImage);
    assert.equal(await problem.getAttribute('data-key'), 'pleaseSelectImage');

    const png = await landscapePng();
    await panel.getByLabel('First frame', { exact: true }).setInputFiles({ name: 'valley.png', mimeType: 'image/png', buffer: png });
    await panel.locator('img.gen-image__preview').waitFor();
    await panel.getByLabel('Camera control', { exact: true }).selectOption('Zoom');
    await panel.getByLabel(/^Camera offset/).fill('4');
    await panel.getByLabel('Prompt', { exact: true }).fill('a slow dawn over a mountain valley');
    await page.getByTestId('video-cost').filter({ hasText: /Costs \d+ credits/ }).waitFor();

    const response = page.waitForResponse((r) => r.url().endsWith('/api/v1/task/v2/video/img-to-video') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    const res = await response;
    const sent = JSON.parse(res.request().postData() ?? '{}');
    assert.equal(sent.model_no, 'easelFlow');
    assert.deepEqual(sent.meta.generate_video.camera_control_option, { mode: 'Zoom', offset: 4 });
    assert.equal(sent.meta.generate_video.image_opts.length, 1);
    assert.equal(sent.meta.generate_video.image_opts[0].mode, 'image');
    assert.equal(sent.meta.task_from, 'web');
    const body = await res.json();
    assert.equal(body.status.code, 10000, JSON.stringify(body.status));
    const id = body.data.id;
    await page.getByRole('status').filter({ hasText: TEXT.createSuccess }).waitFor();

    // The task list follows the task: a progress bar while it runs, then the player.
    const card = page.locator(`[data-testid="task-card"][data-task-id="${id}"]`);
    await card.locator('progress.task-progress').waitFor();
    const video = card.locator('[data-testid="task-video"]');
    await video.waitFor({ timeout: 180_000 });
    const task = (await apiPost(backend.url, '/api/v1/task/batch-progress', { task_ids: [id] }, token)).items[0];
    assert.equal(task.status, 3, JSON.stringify(task));
    assert.equal(task.video_uris.length, 1);
    assert.equal(task.hls_uris.length, 1);
    doneTask = task;

    const poster = await video.getAttribute('poster');
    assert.ok(poster, 'the video has a poster');
    const posterRes = await fetch(new URL(poster, backend.url));
    assert.equal(posterRes.status, 200);
    assert.match(posterRes.headers.get('content-type') ?? '', /^image\//);
    assert.equal(await card.getByTestId('video-download').getAttribute('href'), task.video_uris[0]);

    const played = await video.evaluate(async (v) => {
      v.muted = true;
      await v.play();
      return true;
    });
    assert.equal(played, true);
    const time = await until(page, 'the video to advance', () => video.evaluate((v) => (v.currentTime > 0 ? v.currentTime : 0)), 15_000);
    assert.ok(time > 0);
    const kind = await video.getAttribute('data-playback');
    assert.ok(kind === 'native-hls' || kind === 'hls.js', `the HLS playlist plays (${kind})`);
    await video.evaluate((v) => v.pause());
    await shot('video');
    assert.deepEqual(pageProblems, []);
  });

  test('effects fill the template slots; multi-image estimates before any picture', async () => {
    await page.goto(new URL('/en/create/video', backend.url).href);
    await page.getByRole('tab', { name: 'Effects', exact: true }).click();
    const panel = page.getByRole('tabpanel');
    await panel.getByRole('heading', { name: 'Effects' }).waitFor();
    await panel.getByRole('radio', { name: /^Ken Burns Duo/ }).click();
    assert.equal(await panel.getByRole('radio', { name: /^Ken Burns Duo/ }).getAttribute('aria-checked'), 'true');
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    assert.equal(await page.getByTestId('video-problem').getAttribute('data-key'), 'pleaseSelectImage');
    const png = await landscapePng();
    for (const label of ['Picture 1', 'Picture 2']) {
      await panel.getByLabel(label, { exact: true }).setInputFiles({ name: `${label}.png`, mimeType: 'image/png', buffer: png });
    }
    await until(page, 'both previews', async () => (await panel.locator('img.gen-image__preview').count()) === 2, 15_000);
    await page.getByTestId('video-cost').filter({ hasText: /Costs \d+ credits/ }).waitFor();
    const response = page.waitForResponse((r) => r.url().endsWith('/api/v1/task/v2/video/img-to-video') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    const res = await response;
    const sent = JSON.parse(res.request().postData() ?? '{}');
    assert.equal(sent.template_id, 'ken_burns_duo');
    assert.equal(sent.model_no, '');
    assert.deepEqual(
      sent.meta.generate_video.image_opts.map((o) => o.mode),
      ['image', 'image'],
    );
    const body = await res.json();
    assert.equal(body.status.code, 10000, JSON.stringify(body.status));
    const card = page.locator(`[data-testid="task-card"][data-task-id="${body.data.id}"]`);
    await card.locator('[data-testid="task-video"]').waitFor({ timeout: 180_000 });
    const task = (await apiPost(backend.url, '/api/v1/task/batch-progress', { task_ids: [body.data.id] }, token)).items[0];
    assert.equal(task.status, 3, JSON.stringify(task));
    assert.equal(task.type, 45, 'an effect task');

    await page.getByRole('tab', { name: 'Multi-image video', exact: true }).click();
    await panel.getByRole('heading', { name: 'Multi-image video' }).waitFor();
    for (let i = 1; i <= 4; i++) await panel.getByLabel(`Picture ${i}`, { exact: true }).waitFor();
    // Spec 2 §5: the estimate skips the image check; generating does not.
    await page.getByTestId('video-cost').filter({ hasText: /Costs \d+ credits/ }).waitFor();
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    assert.equal(await page.getByTestId('video-problem').getAttribute('data-key'), 'pleaseSelectImage');
    assert.deepEqual(pageProblems, []);
  });

  test('edit a video: upload an MP4 in parts (progress to complete, cover), upscale it, interpolate its frames, reuse a task', async () => {
    assert.ok(doneTask, 'the first test made a video');
    const dir = await mkdtemp(path.join(tmpdir(), 'easel-video-'));
    const mp4 = path.join(dir, 'out.mp4');
    try {
      execFileSync('ffmpeg', ['-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=24', '-t', '2', '-pix_fmt', 'yuv420p', mp4]);
      await page.goto(new URL('/en/create/video', backend.url).href);
      await page.getByRole('tab', { name: 'Edit a video', exact: true }).click();
      const panel = page.getByRole('tabpanel');
      await panel.getByRole('heading', { name: 'Edit a video' }).waitFor();
      assert.equal(await panel.getByRole('radio', { name: /^Upscale/ }).getAttribute('aria-checked'), 'true');
      assert.equal(await panel.getByRole('radio', { name: 'Upload a video' }).getAttribute('aria-checked'), 'true');

      // Without a source: the page's own check.
      await page.getByTestId('video-tool-run').click();
      assert.equal(await page.getByTestId('video-tool-problem').getAttribute('data-key'), 'videoSourceMissing');

      const calls = [];
      page.on('request', (r) => {
        const u = new URL(r.url());
        if (u.pathname.startsWith('/api/v1/resource/')) calls.push(`${r.method()} ${u.pathname.replace(/\/upload\/[^/]+\/(\d+)$/, '/upload/{id}/$1')}`);
      });
      await panel.getByLabel('Video file', { exact: true }).setInputFiles(mp4);
      const upload = page.locator('[data-testid="video-upload"][data-status="complete"]');
      await upload.waitFor();
      assert.equal(await page.getByTestId('video-upload-progress').getAttribute('value'), '100');
      assert.equal(await page.getByTestId('video-upload-state').textContent(), 'out.mp4 uploaded');
      // Spec 2 §7: pre-sign (category 8), PUT the part, confirm it, then confirm the file.
      assert.deepEqual(calls, [
        'POST /api/v1/resource/pre-sign/get',
        'PUT /api/v1/resource/upload/{id}/0',
        'POST /api/v1/resource/pre-sign/confirmPart',
        'POST /api/v1/resource/pre-sign/confirm',
      ]);
      // The cover: a frame of the video (testsrc is never blank).
      const cover = page.getByTestId('video-cover');
      await cover.waitFor();
      assert.equal(await cover.getAttribute('data-saturation'), '1');
      assert.match((await cover.getAttribute('src')) ?? '', /^data:image\/jpeg;base64,/);
      await page.getByTestId('video-tool-source').filter({ hasText: 'out.mp4 · 320×240 · 2 s' }).waitFor();

      const response = page.waitForResponse((r) => r.url().endsWith('/api/v1/task/v2/video/upscale') && r.request().method() === 'POST');
      await page.getByTestId('video-tool-run').click();
      const res = await response;
      const sent = JSON.parse(res.request().postData() ?? '{}');
      assert.match(sent.meta.generate_video.video_url, /\/files\/u\/[0-9a-f]+\/out\.mp4$/);
      assert.equal(sent.meta.generate_video.duration, 2);
      assert.deepEqual([sent.meta.width, sent.meta.height], [640, 480]);
      assert.equal(sent.parent_task_id, undefined);
      const body = await res.json();
      assert.equal(body.status.code, 10000, JSON.stringify(body.status));
      await page.getByRole('status').filter({ hasText: TEXT.createSuccess }).waitFor();
      const card = page.locator(`[data-testid="task-card"][data-task-id="${body.data.id}"]`);
      await card.locator('[data-testid="task-video"]').waitFor({ timeout: 180_000 });
      const task = (await apiPost(backend.url, '/api/v1/task/batch-progress', { task_ids: [body.data.id] }, token)).items[0];
      assert.equal(task.status, 3, JSON.stringify(task));
      assert.equal(task.type, 47, 'a video upscale task');
      assert.deepEqual([task.width, task.height], [640, 480]);
      await shot('video-tools');

      // The finished video's action bar: the video tools, no audio buttons.
      const bar = card.getByTestId('video-action-bar');
      const names = await bar.getByRole('button').allTextContents();
      assert.deepEqual(names, ['Extend video', 'Upscale video', 'Extend frames', 'Post']);
      const interp = page.waitForResponse((r) => r.url().endsWith('/api/v1/task/v2/video/frame-interpolation') && r.request().method() === 'POST');
      await bar.getByRole('button', { name: 'Extend frames', exact: true }).click();
      const ires = await interp;
      const isent = JSON.parse(ires.request().postData() ?? '{}');
      assert.equal(isent.parent_task_id, body.data.id);
      assert.equal(isent.meta.generate_video.duration, 2);
      assert.equal((await ires.json()).status.code, 10000);
      await page.getByRole('status').filter({ hasText: TEXT.started }).waitFor();

      // "My videos" lists the finished videos; picking one makes it the source; the upload comes back with its tab.
      const listed = page.waitForResponse((r) => r.url().endsWith('/api/v1/task/v2/video/histories') && r.request().method() === 'POST');
      await panel.getByRole('radio', { name: 'My videos', exact: true }).click();
      assert.equal((await (await listed).json()).status.code, 10000);
      const mine = panel.getByRole('radiogroup', { name: 'My videos' });
      await mine.locator(`[data-task-id="${doneTask.id}"]`).click();
      await page.getByTestId('video-tool-source').filter({ hasText: /^Your video · 1280×720 · \d+(\.\d)? s$/ }).waitFor();
      assert.equal(await mine.locator(`[data-task-id="${body.data.id}"]`).count(), 1, 'the upscaled video is listed');
      await panel.getByRole('radio', { name: 'Upload a video', exact: true }).click();
      await page.getByTestId('video-tool-source').filter({ hasText: 'out.mp4 · 320×240 · 2 s' }).waitFor();

      // "Reuse" on the first task: its create payload (get-meta-info) opens image to video with
      // everything it was made with: Flow, 5 s, Zoom at 4, the prompt and the picture (the task
      // view alone would give the tab's first model, Lite, its 10 s and no camera move).
      const first = page.locator(`[data-testid="task-card"][data-task-id="${doneTask.id}"]`);
      const meta = page.waitForResponse((r) => r.url().endsWith('/api/v1/task/v2/video/get-meta-info') && r.request().method() === 'POST');
      await first.getByTestId('video-action-bar').getByRole('button', { name: 'Reuse', exact: true }).click();
      const mres = await meta;
      assert.deepEqual(JSON.parse(mres.request().postData() ?? '{}'), { task_id: doneTask.id, task_flow_version: 'v2' });
      const minfo = await mres.json();
      assert.equal(minfo.status.code, 10000, JSON.stringify(minfo.status));
      assert.equal(minfo.data.tab, 'img2video');
      await panel.getByRole('heading', { name: 'Image to video' }).waitFor();
      assert.equal(await page.getByRole('tab', { name: 'Image to video', exact: true }).getAttribute('aria-selected'), 'true');
      assert.equal(await panel.getByLabel('Prompt', { exact: true }).inputValue(), 'a slow dawn over a mountain valley');
      assert.equal(await panel.getByLabel('Model', { exact: true }).inputValue(), 'easelFlow');
      assert.equal(await panel.getByLabel('Duration', { exact: true }).inputValue(), '5');
      assert.equal(await panel.getByLabel('Camera control', { exact: true }).inputValue(), 'Zoom');
      assert.equal(await panel.getByLabel(/^Camera offset/).inputValue(), '4');
      await panel.locator('img.gen-image__preview').waitFor();
      assert.deepEqual(pageProblems, []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('an upload whose part keeps failing stops with uploadError after 3 retries and resumes on the same upload', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'easel-video-'));
    const mp4 = path.join(dir, 'again.mp4');
    const p = await context.newPage();
    p.setDefaultTimeout(TIMEOUT_MS);
    p.on('pageerror', (e) => pageProblems.push(`pageerror: ${e.message}`));
    try {
      execFileSync('ffmpeg', ['-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=24', '-t', '1', '-pix_fmt', 'yuv420p', mp4]);
      // The network drops the first 4 PUTs (the part and its 3 retries).
      let dropped = 0;
      await p.route(/\/api\/v1\/resource\/upload\//, (route) => (dropped++ < 4 ? route.abort('failed') : route.continue()));
      const calls = [];
      p.on('request', (r) => {
        const u = new URL(r.url());
        if (u.pathname.startsWith('/api/v1/resource/pre-sign/')) calls.push(u.pathname.slice('/api/v1/resource/pre-sign/'.length));
      });
      await p.goto(new URL('/en/create/video', backend.url).href);
      await p.getByRole('tab', { name: 'Edit a video', exact: true }).click();
      const panel = p.getByRole('tabpanel');
      await panel.getByLabel('Video file', { exact: true }).setInputFiles(mp4);
      await p.locator('[data-testid="video-upload"][data-status="fail"]').waitFor({ timeout: 30_000 });
      assert.equal(dropped, 4);
      const message = p.getByTestId('video-upload-message');
      assert.equal(await message.getAttribute('data-key'), 'uploadError');
      assert.match((await message.textContent()) ?? '', /^The file was not uploaded\. Please upload it again\./);
      await panel.getByRole('button', { name: /^Resume the upload/ }).click();
      await p.locator('[data-testid="video-upload"][data-status="complete"]').waitFor();
      assert.equal(await p.getByTestId('video-upload-progress').getAttribute('value'), '100');
      // One pre-sign only: the retry asked which parts the server holds and kept the file_id.
      assert.deepEqual(calls, ['get', 'getPreSignAddr', 'confirmPart', 'confirm']);
      assert.deepEqual(pageProblems, []);
    } finally {
      await p.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  /** Opens the video page in a fresh page of the same context, after `setup(page)`; answers the task's player. */
  async function openPlayer(setup) {
    const p = await context.newPage();
    p.setDefaultTimeout(TIMEOUT_MS);
    p.on('pageerror', (e) => pageProblems.push(`pageerror: ${e.message}`));
    await setup(p);
    await p.goto(new URL('/en/create/video', backend.url).href);
    const video = p.locator(`[data-testid="task-card"][data-task-id="${doneTask.id}"] [data-testid="task-video"]`);
    await video.waitFor();
    return { p, video };
  }

  async function playsOn(p, video) {
    await video.evaluate(async (v) => {
      v.muted = true;
      await v.play();
    });
    return until(p, 'the video to advance', () => video.evaluate((v) => (v.currentTime > 0 ? v.currentTime : 0)), 15_000);
  }

  test('a browser without native HLS plays the stream through hls.js', async () => {
    assert.ok(doneTask, 'the first test made a video');
    const fetched = [];
    const { p, video } = await openPlayer(async (pg) => {
      // This browser says it cannot play HLS itself.
      await pg.addInitScript(() => {
        const can = window.HTMLMediaElement.prototype.canPlayType;
        window.HTMLMediaElement.prototype.canPlayType = function (type) {
          return /mpegurl/i.test(type) ? '' : can.call(this, type);
        };
      });
      pg.on('request', (r) => fetched.push(new URL(r.url()).pathname));
    });
    try {
      await until(p, 'hls.js to take the stream', async () => (await video.getAttribute('data-playback')) === 'hls.js', 15_000);
      assert.ok((await playsOn(p, video)) > 0);
      // Only this task's stream (the list also shows the effect task's player).
      const own = path.posix.dirname(new URL(doneTask.hls_uris[0], backend.url).pathname);
      const playlists = fetched.filter((u) => u.endsWith('.m3u8') && u.startsWith(own));
      assert.ok(playlists.includes(new URL(doneTask.hls_uris[0], backend.url).pathname), playlists.join(','));
      assert.ok(playlists.length >= 2, `master and a media playlist: ${playlists.join(',')}`);
      // Spec 2 §9: the lowest quality first. The first media playlist fetched is the master's lowest bandwidth.
      const masterUrl = new URL(doneTask.hls_uris[0], backend.url);
      const lines = (await (await fetch(masterUrl)).text()).split('\n');
      const levels = lines.flatMap((l, i) => {
        const bw = /^#EXT-X-STREAM-INF:.*BANDWIDTH=(\d+)/.exec(l);
        return bw ? [{ bw: Number(bw[1]), path: new URL(lines[i + 1]?.trim() ?? '', masterUrl).pathname }] : [];
      });
      assert.ok(levels.length >= 1, 'the master lists its levels');
      const lowest = levels.reduce((a, b) => (b.bw < a.bw ? b : a));
      assert.equal(playlists.find((u) => u !== masterUrl.pathname), lowest.path, `levels ${JSON.stringify(levels)}`);
      assert.ok(fetched.some((u) => u.startsWith(own) && /\.(ts|m4s|mp4)$/.test(u)), 'a segment was fetched');
      assert.ok(!fetched.some((u) => doneTask.video_uris.some((m) => new URL(m, backend.url).pathname === u)), 'the MP4 was not fetched');
      assert.deepEqual(pageProblems, []);
    } finally {
      await p.close();
    }
  });

  test('a task without hls_uris plays its MP4', async () => {
    const { p, video } = await openPlayer(async (pg) => {
      // As an older server answers: no HLS.
      await pg.route(/\/api\/v1\/task\/(list|batch-progress)$/, async (route) => {
        const res = await route.fetch();
        const json = await res.json();
        if (json.data?.items) json.data.items = json.data.items.map((t) => ({ ...t, hls_uris: [] }));
        await route.fulfill({ response: res, json });
      });
    });
    try {
      await until(p, 'the MP4 player', async () => (await video.getAttribute('data-playback')) === 'mp4', 15_000);
      assert.equal(await video.getAttribute('src'), doneTask.video_uris[0]);
      assert.ok((await playsOn(p, video)) > 0);
      assert.deepEqual(pageProblems, []);
    } finally {
      await p.close();
    }
  });

  test('post the finished video to the square; its work page plays it and counts a play; another user reports it', async () => {
    assert.ok(doneTask, 'the first test made a video');
    const TITLE = 'Dawn over the valley';
    await page.goto(new URL('/en/create/video', backend.url).href);
    const card = page.locator(`[data-testid="task-card"][data-task-id="${doneTask.id}"]`);
    const bar = card.getByTestId('video-action-bar');
    await bar.getByRole('button', { name: 'Post', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Post to the square' });
    await dialog.waitFor();
    // The video mode: the poster as the preview; no picture choice, no hidden parameters.
    assert.equal(await dialog.getByRole('img', { name: 'Poster of the video' }).getAttribute('src'), doneTask.img_uris[0]);
    assert.equal(await dialog.locator('.publish-images input').count(), 0);
    assert.equal(await dialog.getByLabel('Hide the prompt and parameters').count(), 0);
    await dialog.getByLabel('Title').fill(TITLE);
    await dialog.getByLabel('Description').fill('A slow dawn, made on the video page.');
    await dialog.getByLabel('Tags').fill('dawn, valley');
    const posting = page.waitForResponse((r) => r.url().endsWith('/api/v1/post/video/add') && r.request().method() === 'POST');
    await dialog.getByRole('button', { name: 'Post', exact: true }).click();
    const res = await posting;
    assert.deepEqual(JSON.parse(res.request().postData() ?? '{}'), {
      task_id: doneTask.id,
      title: TITLE,
      description: 'A slow dawn, made on the video page.',
      tags: ['dawn', 'valley'],
      visibility: 'public',
      nsfw: false,
    });
    const answer = await res.json();
    assert.equal(answer.status.code, 10000, JSON.stringify(answer.status));
    const workId = answer.data.id;
    assert.ok(workId);
    const done = page.getByRole('dialog', { name: 'Posted!' });
    await done.getByTestId('publish-done').waitFor();
    // The result now shows it is posted, linking to its work.
    const posted = card.getByTestId('posted-link');
    assert.equal(await posted.getAttribute('href'), `/en/artWorkDetail/${encodeURIComponent(workId)}`);
    assert.equal(await bar.getByRole('button', { name: 'Post', exact: true }).count(), 0);
    const task = (await apiPost(backend.url, '/api/v1/task/batch-progress', { task_ids: [doneTask.id] }, token)).items[0];
    assert.equal(task.pub_artwork_no, workId);

    await done.getByRole('button', { name: 'Check it now' }).click();
    await page.waitForURL(new RegExp(`/en/artWorkDetail/${workId}$`));
    const work = page.getByTestId('work-page');
    await work.getByRole('heading', { name: TITLE }).waitFor();
    const video = work.getByTestId('work-video').locator('video');
    // A task's video streams adaptively (its HLS master playlist), natively or through hls.js.
    const playback = await video.getAttribute('data-playback');
    assert.ok(['native-hls', 'hls.js'].includes(playback ?? ''), `playback ${playback}`);
    if (playback === 'native-hls') assert.equal(await video.getAttribute('src'), doneTask.hls_uris[0]);
    assert.equal(await video.getAttribute('poster'), doneTask.img_uris[0]);
    // One's own video has no "Report".
    assert.equal(await work.getByTestId('report-button').count(), 0);

    /** Plays the page's video until it has data and advances; answers the play calls seen meanwhile. */
    async function play(p, v, playCalls) {
      const counted = p.waitForResponse((r) => r.url().endsWith('/api/v1/ai-video/play') && r.request().method() === 'POST');
      await v.evaluate(async (el) => {
        el.muted = true;
        await el.play();
      });
      const playRes = await counted;
      assert.deepEqual(JSON.parse(playRes.request().postData() ?? '{}'), { id: workId });
      const body = await playRes.json();
      assert.equal(body.status.code, 10000, JSON.stringify(body.status));
      await until(p, 'the video to have data', () => v.evaluate((el) => el.readyState >= 2), 15_000);
      await until(p, 'the video to advance', () => v.evaluate((el) => el.currentTime > 0), 15_000);
      // Pausing and playing again in the same page view counts nothing more.
      await v.evaluate(async (el) => {
        el.pause();
        await el.play();
      });
      await until(p, 'the video to play again', () => v.evaluate((el) => !el.paused && el.readyState >= 2), 15_000);
      await v.evaluate((el) => el.pause());
      assert.equal(playCalls.length, 1, playCalls.join(','));
      return body.data.plays;
    }
    const ownPlays = [];
    page.on('request', (r) => r.url().endsWith('/api/v1/ai-video/play') && ownPlays.push(r.url()));
    assert.equal(await play(page, video, ownPlays), 1);
    await work.getByTestId('work-plays').filter({ hasText: 'Plays: 1' }).waitFor();
    await shot('video-work');

    // Another user watches it (a second play) and reports it.
    const { token: other } = await signUp(backend.url, { prefix: 'viewer', password: 'viewer-test-1', name: 'Video Viewer' });
    const otherContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      await otherContext.addCookies([{ name: 'T', value: other, url: backend.url }]);
      const p = await otherContext.newPage();
      p.setDefaultTimeout(TIMEOUT_MS);
      p.on('pageerror', (e) => pageProblems.push(`pageerror: ${e.message}`));
      const theirPlays = [];
      p.on('request', (r) => r.url().endsWith('/api/v1/ai-video/play') && theirPlays.push(r.url()));
      await p.goto(new URL(`/en/artWorkDetail/${encodeURIComponent(workId)}`, backend.url).href);
      await p.getByTestId('account-name').filter({ hasText: 'Video Viewer' }).waitFor();
      const theirs = p.getByTestId('work-page');
      await theirs.getByRole('heading', { name: TITLE }).waitFor();
      assert.equal(await play(p, theirs.getByTestId('work-video').locator('video'), theirPlays), 2);

      await theirs.getByTestId('report-button').click();
      const report = p.getByRole('dialog', { name: 'Report this work' });
      await report.waitFor();
      // A reason first; "Something else" needs a detail: checked before sending.
      const reports = [];
      p.on('request', (r) => r.url().endsWith('/api/v1/report') && reports.push(r.postData()));
      await report.getByRole('button', { name: 'Send report' }).click();
      await report.getByRole('alert').filter({ hasText: 'Choose a reason.' }).waitFor();
      await report.getByRole('radio', { name: 'Something else' }).check();
      await report.getByRole('button', { name: 'Send report' }).click();
      await report.getByRole('alert').filter({ hasText: 'Describe the problem in the details.' }).waitFor();
      assert.deepEqual(reports, []);

      await report.getByRole('radio', { name: 'Spam or advertising' }).check();
      const sent = p.waitForResponse((r) => r.url().endsWith('/api/v1/report') && r.request().method() === 'POST');
      await report.getByRole('button', { name: 'Send report' }).click();
      const rres = await sent;
      const rsent = JSON.parse(rres.request().postData() ?? '{}');
      assert.equal(rsent.obj_id, workId);
      assert.equal(rsent.reason, 'spam');
      const rbody = await rres.json();
      assert.equal(rbody.status.code, 10000, JSON.stringify(rbody.status));
      await report.getByTestId('report-done').filter({ hasText: 'Thank you. The moderators will look at your report.' }).waitFor();
      await report.getByRole('button', { name: 'Close' }).last().click();
      await report.waitFor({ state: 'detached' });

      // One open report per reporter: a second one is refused with the server's key.
      await theirs.getByTestId('report-button').click();
      await report.getByRole('radio', { name: 'Something else' }).check();
      await report.getByLabel('Details').fill('This clip is copied from another creator.');
      const again = p.waitForResponse((r) => r.url().endsWith('/api/v1/report') && r.request().method() === 'POST');
      await report.getByRole('button', { name: 'Send report' }).click();
      assert.equal((await (await again).json()).status.key, 'reportDuplicate');
      await report.getByRole('alert').filter({ hasText: 'You already reported this.' }).waitFor();
      await p.close();
    } finally {
      await otherContext.close();
    }
    // The author cannot report their own video: the server's own rule, as the API answers it.
    const own = await apiCall(backend.url, '/api/v1/ai-video/report', { id: workId, reason: 'spam', detail: '' }, token);
    assert.notEqual(own.status.code, 10000);
    assert.equal(own.status.key, 'reportSelf');
    assert.deepEqual(pageProblems, []);
  });
});
