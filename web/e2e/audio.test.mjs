// Browser test of audio against the real backend binary and real Chromium
// (issue 18): a user hears a TTS preview (the audio element plays and reports
// a duration), downloads it through the audio event stream (the saved file
// is the served file, byte for byte), makes a song with lyrics (the task
// finishes and its audio plays in the waveform player), uploads an audio clip
// and a fake one (refused by decoding, with the translated uploadAudioError),
// browses the voices with a filter, and sets a voice on a chat whose next
// reply then speaks (a play control in the reply's bubble that plays).
// Screenshot: docs/screenshots/audio.png (a finished song with its waveform).
/* global document */
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import * as h from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(WEB_DIR, '..', 'docs', 'screenshots');
const WAIT_MS = 30_000;
/** A song is rendered by the reference synthesiser (and sung by the speech engine): give it time on 2 shared cores. */
const SONG_MS = 240_000;

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {import('playwright-core').Page} */
let page;
let token = '';
const pageProblems = [];

const post = (pathname, body, withToken = token) => h.apiPost(backend.url, pathname, body, withToken);
const at = (p) => new URL(p, backend.url).href;
const until = (what, check, ms = WAIT_MS) => h.until(page, what, check, ms);

/** A mono 16-bit WAV of a 440 Hz tone, `secs` long. */
function toneWav(secs, rate = 16_000) {
  const n = Math.round(secs * rate);
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
  for (let i = 0; i < n; i++) buf.writeInt16LE(Math.round(12_000 * Math.sin((2 * Math.PI * 440 * i) / rate)), 44 + i * 2);
  return buf;
}

/** Plays the audio element found by `selector` (inside `scope`) and answers {duration, currentTime} once it has played a little. */
async function playAndMeasure(locator) {
  await locator.evaluate((el) => {
    const a = /** @type {HTMLAudioElement} */ (el);
    return a.play();
  });
  return until('the audio to play', async () => {
    const s = await locator.evaluate((el) => {
      const a = /** @type {HTMLAudioElement} */ (el);
      return { duration: a.duration, currentTime: a.currentTime, paused: a.paused, error: a.error?.code ?? null };
    });
    assert.equal(s.error, null, 'the browser decodes the audio');
    return s.currentTime > 0.2 && Number.isFinite(s.duration) && s.duration > 0 ? s : null;
  });
}

describe('audio', { timeout: 600_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend({ env: { EASEL_LLM: 'scripted', EASEL_LLM_SCRIPTED_INTERVAL_MS: '20' } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync', '--autoplay-policy=no-user-gesture-required'],
    });
    const login = await h.signUp(backend.url, { prefix: 'audio', password: 'audio-e2e-pass-1', name: 'Aria' });
    token = login.token;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    await context.addCookies([{ name: 'T', value: token, url: backend.url, sameSite: 'Lax' }]);
    page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('pageerror', (e) => pageProblems.push(`pageerror: ${e.message}`));
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await backend?.stop();
    }
    assert.deepEqual(pageProblems, []);
  });

  test('hears a TTS preview and downloads it through the event stream', async () => {
    await page.goto(at('/en/create/audio'));
    await h.online(page);
    assert.equal(await page.getByTestId('audio-tab-aiVoice').getAttribute('aria-selected'), 'true', 'aiVoice is the default tab');
    // The picker lists the built-in voices; the first one is chosen.
    const picker = page.getByTestId('voice-picker');
    await until('the voices', async () => (await picker.locator('option').count()) > 1);
    const voiceId = await picker.locator('option').nth(1).getAttribute('value');
    await picker.selectOption(voiceId);
    await page.getByTestId('audio-text').fill('Hello from Easel. This sentence is spoken by a real speech engine.');
    await page.getByTestId('audio-generate').click();
    const player = page.getByTestId('speech-player').first();
    await player.waitFor();
    await player.getByTestId('audio-engine').waitFor();
    const played = await playAndMeasure(player.locator('audio'));
    assert.ok(played.duration > 1.5 && played.duration < 20, `a sentence lasts seconds: ${played.duration}`);
    // The waveform is drawn from the decoded audio.
    await player.getByTestId('audio-wave').waitFor();
    // Download: joined from the event stream's chunks, byte-exact.
    const src = await player.getAttribute('data-src');
    const served = Buffer.from(await (await fetch(new URL(src, backend.url))).arrayBuffer());
    const [download] = await Promise.all([page.waitForEvent('download'), player.getByTestId('audio-download').click()]);
    const saved = await readFile(await download.path());
    assert.ok(saved.equals(served), `downloaded ${saved.length} bytes, served ${served.length}`);
    // Too long a text is refused before any call, with the server's key.
    await page.getByTestId('audio-text').fill('x'.repeat(1001));
    await page.getByTestId('audio-generate').click();
    assert.equal(await page.getByTestId('audio-problem').getAttribute('data-key'), 'audioTextTooLong');
  });

  test('makes a song with lyrics: the task finishes and its audio plays', async () => {
    await page.goto(at('/en/create/audio'));
    await page.getByTestId('audio-tab-music').click();
    await page.getByTestId('music-mode-vocalSongs').check();
    await page.getByTestId('music-prompt').fill('bright hopeful pop, 110 bpm');
    await page.getByTestId('music-lyrics').fill('[Verse]\nMorning light on the harbour\n[Chorus]\nSing it loud, sing it clear');
    await page.getByTestId('music-duration').fill('12');
    await page.getByTestId('audio-generate').click();
    const card = page.getByTestId('task-card').first();
    await card.waitFor();
    await until('the song task to finish', async () => {
      const status = await card.getAttribute('data-status');
      assert.notEqual(status, '4', `the song task failed: ${await card.textContent()}`);
      return status === '3';
    }, SONG_MS);
    const player = card.getByTestId('task-audio-player').first();
    await player.getByTestId('audio-wave').waitFor();
    const played = await playAndMeasure(player.locator('audio'));
    assert.ok(Math.abs(played.duration - 12) < 1.5, `the song lasts what was asked: ${played.duration}`);
    await player.getByTestId('audio-engine').waitFor();
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, 'audio.png') });
  });

  test('uploads an audio clip, and a fake one is refused by decoding', async () => {
    await page.goto(at('/en/create/audio'));
    await page.getByTestId('audio-tab-lipSync').click();
    await page.getByTestId('lipsync-tab-lipSyncAudio').check();
    await page.getByTestId('audio-file').setInputFiles({ name: 'tone.wav', mimeType: 'audio/wav', buffer: toneWav(2) });
    await until('the clip uploaded', async () => (await page.getByTestId('audio-upload').getAttribute('data-status')) === 'done');
    await page.getByTestId('audio-file').setInputFiles({ name: 'fake.mp3', mimeType: 'audio/mpeg', buffer: Buffer.from('not audio at all '.repeat(200)) });
    await until('the fake refused', async () => (await page.getByTestId('audio-upload').getAttribute('data-status')) === 'error');
    assert.equal(await page.getByTestId('audio-upload').textContent(), 'This file is not audio we can read. Please upload another.');
  });

  test('browses the voices with a filter', async () => {
    await page.goto(at('/en/timbre'));
    await page.getByTestId('timbre-list').waitFor();
    const all = await page.getByTestId('timbre-card').count();
    assert.ok(all > 0, 'built-in voices are listed');
    await page.getByTestId('timbre-filter-female').click();
    await until('the filtered list', async () => {
      const n = await page.getByTestId('timbre-card').count();
      return n > 0 && n <= all;
    });
    await page.getByTestId('timbre-card').first().getByRole('link').click();
    await page.getByTestId('timbre-detail').waitFor();
    await page.getByTestId('timbre-try').click();
    await playAndMeasure(page.getByTestId('timbre-try-player').locator('audio'));
  });

  test('sets a voice on a chat whose reply then speaks', async () => {
    const { id: characterId } = await post('/api/v1/tavern-pro/publish', {
      name: 'Wren',
      greeting: 'Hello {{user}}, I am {{char}}.',
      persona: '{{char}} keeps a lighthouse.',
      published: true,
    });
    await page.goto(at(`/en/tavern/chat/${encodeURIComponent(characterId)}`));
    await h.online(page);
    await page.getByTestId('chat-message').first().waitFor();
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Chat settings' });
    const picker = dialog.getByTestId('session-voice-picker');
    await until('the voices', async () => (await picker.locator('option').count()) > 1);
    await picker.selectOption(await picker.locator('option').nth(1).getAttribute('value'));
    await dialog.getByText('Voice saved.').waitFor();
    await dialog.getByTestId('session-voice-autoplay').check();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    const box = page.getByRole('textbox', { name: /^Message / });
    await box.fill('Tell me about the sea.');
    await box.press('Enter');
    const reply = page.locator('[data-testid="chat-message"][data-role="assistant"]').last();
    const speech = reply.getByTestId('message-speech-audio');
    await speech.waitFor({ timeout: 90_000 });
    const played = await until('the spoken reply to play (autoplay)', async () => {
      const s = await speech.evaluate((el) => {
        const a = /** @type {HTMLAudioElement} */ (el);
        return { duration: a.duration, currentTime: a.currentTime, error: a.error?.code ?? null };
      });
      assert.equal(s.error, null);
      return s.currentTime > 0.2 ? s : null;
    });
    assert.ok(played.duration > 0.5, `the reply is spoken: ${played.duration}`);
    assert.equal(await noSpeechFailure(), true);
  });
});

/** No "could not be spoken" notice anywhere on the page. */
async function noSpeechFailure() {
  return page.evaluate(() => document.querySelector('[data-testid="message-speech-failed"]') === null);
}
