// Browser test against the real backend running the real local language
// model: SmolLM2-135M-Instruct in-process through llama.cpp (EASEL_LLM=local,
// models/smollm2-135m-instruct.gguf; fetch it with scripts/fetch-model).
// A user creates a geography teacher in the tavern, lowers the chat's
// temperature in the settings dialog, asks two questions and watches the
// replies stream in; the label under them names SmolLM2 (a neural model, so
// no "not a neural model" tag). A message is deleted only after the app's own
// confirm dialog, used from the keyboard. On /agent the model proposes a
// prompt that goes into the generator with one click; in the generator,
// Polish rewrites a prompt with the model.
// Without the model file the tests are skipped, unless
// EASEL_TEST_REQUIRE_MODEL=1, when they fail.
// Screenshots: docs/screenshots/tavern-chat.png, agent.png, polish.png.
/* global document -- used inside page.evaluate callbacks */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend } from './backend.mjs';
import * as h from './helpers.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MODEL_PATH = path.resolve(HERE, '..', '..', 'models', 'smollm2-135m-instruct.gguf');
const SHOTS = path.resolve(HERE, '..', '..', 'docs', 'screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Generous: a short reply takes about a second on a small machine. */
const WAIT_MS = 60_000;

const modelMissing = !existsSync(MODEL_PATH);
const requireModel = process.env.EASEL_TEST_REQUIRE_MODEL === '1';
const skipReason = `the local model file is missing (${MODEL_PATH}): run scripts/fetch-model, or set EASEL_TEST_REQUIRE_MODEL=1 to fail instead of skipping`;

if (modelMissing && requireModel) {
  test('the local model file is present (EASEL_TEST_REQUIRE_MODEL=1)', () => {
    assert.fail(`${MODEL_PATH} is missing: run scripts/fetch-model`);
  });
}

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {import('playwright-core').Page} */
let page;
const pageProblems = [];

const at = (p) => new URL(p, backend.url).href;
const until = (what, check) => h.until(page, what, check, WAIT_MS);

/**
 * Sends a message and waits for the model's whole reply; checks that it was
 * seen growing while streaming. Returns the finished reply's text.
 */
async function ask(question, count) {
  await h.watchLastReply(page);
  const box = page.getByRole('textbox', { name: /^Message / });
  await box.fill(question);
  await box.press('Enter');
  const m = await until('the reply to finish', async () => {
    const all = await h.chatMessages(page);
    return all.length === count && all[count - 1].role === 'assistant' && all[count - 1].state !== 'streaming' && all;
  });
  const reply = m[count - 1];
  assert.equal(reply.state, 'done', `the reply finished: ${JSON.stringify(reply)}`);
  assert.equal(m[count - 2].text, question);
  const text = reply.text.trim();
  assert.ok(text.length > 0, 'the reply is not empty');
  assert.match(text, /[A-Za-z]{2,}(\s+\S+){2,}/, `the reply is real text: ${JSON.stringify(text)}`);
  assert.doesNotMatch(text, /You said:/, 'not the scripted test model');
  const log = await h.replyLog(page);
  const partial = log.filter((e) => e.state === 'streaming' && e.text.trim() !== '');
  assert.ok(partial.length >= 2, `the reply was seen streaming in: ${JSON.stringify(log)}`);
  for (let i = 1; i < partial.length; i++) assert.ok(partial[i].text.startsWith(partial[i - 1].text), 'new text is appended, never rewritten');
  return text;
}

/** A portrait for the teacher: a small globe drawn by the browser's canvas. */
async function globePng() {
  const b64 = await page.evaluate(() => {
    const c = document.createElement('canvas');
    c.width = 256;
    c.height = 256;
    const g = c.getContext('2d');
    const bg = g.createLinearGradient(0, 0, 256, 256);
    bg.addColorStop(0, '#fde9c8');
    bg.addColorStop(1, '#f4b67a');
    g.fillStyle = bg;
    g.fillRect(0, 0, 256, 256);
    const sea = g.createRadialGradient(104, 100, 20, 128, 128, 100);
    sea.addColorStop(0, '#5fb3f0');
    sea.addColorStop(1, '#1f5fa8');
    g.fillStyle = sea;
    g.beginPath();
    g.arc(128, 128, 92, 0, Math.PI * 2);
    g.fill();
    g.save();
    g.beginPath();
    g.arc(128, 128, 92, 0, Math.PI * 2);
    g.clip();
    g.fillStyle = '#4caf6a';
    for (const [x, y, rx, ry, r] of [
      [92, 92, 34, 22, -0.5],
      [112, 150, 18, 34, 0.3],
      [168, 100, 30, 18, 0.4],
      [176, 160, 20, 14, -0.2],
    ]) {
      g.beginPath();
      g.ellipse(x, y, rx, ry, r, 0, Math.PI * 2);
      g.fill();
    }
    g.restore();
    g.strokeStyle = 'rgba(255,255,255,0.55)';
    g.lineWidth = 2;
    g.beginPath();
    g.ellipse(128, 128, 92, 30, 0, 0, Math.PI * 2);
    g.stroke();
    return c.toDataURL('image/png').split(',')[1];
  });
  return Buffer.from(b64, 'base64');
}

function promptField() {
  return page.getByRole('tabpanel').getByLabel('Prompt', { exact: true });
}

describe('the real local language model (SmolLM2-135M-Instruct)', { timeout: 600_000, skip: modelMissing ? skipReason : false }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend({ env: { EASEL_LLM: 'local', EASEL_LLM_MODEL_PATH: MODEL_PATH } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    const login = await h.signUp(backend.url, { prefix: 'real-model', password: 'real-model-e2e-pass-1', name: 'Sam' });
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    await context.addCookies([{ name: 'T', value: login.token, url: backend.url, sameSite: 'Lax' }]);
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
    assert.deepEqual(pageProblems, []);
  });

  test('chats with a character and the model writes the replies', async () => {
    await page.goto(at('/en/tavern/new'));
    const form = page.getByTestId('character-form');
    await h.uploadCharacterPicture(form, 'globe.png', await globePng());
    await h.fillCharacterForm(form, {
      name: 'Ms. Dalton',
      description: 'A warm geography teacher who knows a fact about every place on the map.',
      gender: 'female',
      persona: 'Ms. Dalton is a warm, patient geography teacher. She answers in one or two short, friendly sentences and loves sharing a fun fact.',
      scenario: 'An after-school geography club, with a big globe on the desk.',
      greeting: 'Good afternoon! Which corner of the world shall we explore today?',
      tags: 'geography, teacher, travel',
    });
    await h.saveCharacter(page, form, 'Ms. Dalton');

    await page.getByRole('button', { name: 'Start a chat' }).click();
    await page.waitForURL(/\/en\/tavern\/chat\/[^/]+\/[^/]+$/);
    await h.online(page);
    await until('the greeting', async () => {
      const m = await h.chatMessages(page);
      return m.length === 1 && m[0].text === 'Good afternoon! Which corner of the world shall we explore today?';
    });

    // Temperature 0 (always the likeliest word) keeps the small model's answers steady.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const settings = page.getByRole('dialog', { name: 'Chat settings' });
    await settings.getByLabel('Chat title').fill('Capitals and mountains');
    await settings.getByLabel('Temperature', { exact: true }).fill('0');
    await settings.getByRole('button', { name: 'Save' }).click();
    await settings.waitFor({ state: 'detached' });
    await page.getByRole('navigation', { name: /^Chats with / }).getByText('Capitals and mountains').waitFor();

    const first = await ask('What is the capital of France?', 3);
    const second = await ask('What is the tallest mountain in the world?', 5);
    console.log(`SmolLM2 replied: ${JSON.stringify(first)} / ${JSON.stringify(second)}`);

    // Every reply is labelled with the model that wrote it: SmolLM2, a neural model.
    const labels = page.getByTestId('model-label');
    assert.equal(await labels.count(), 2, 'the two replies carry the model label (the greeting does not)');
    for (const text of await labels.allTextContents()) assert.match(text, /SmolLM2/);
    assert.equal(await page.getByText('not a neural model').count(), 0);

    await page.getByRole('textbox', { name: /^Message / }).blur();
    await page.mouse.move(0, 0);
    await page.screenshot({ path: path.join(SHOTS, 'tavern-chat.png') });
  });

  test("deletes a message only after the app's confirm dialog, by keyboard", async () => {
    const before = await h.chatMessages(page);
    const last = page.getByTestId('chat-message').last();
    const del = last.getByRole('button', { name: 'Delete', exact: true });
    // Escape closes the dialog and keeps the message.
    await del.focus();
    await page.keyboard.press('Enter');
    const confirm = page.getByRole('dialog', { name: 'Delete this message?' });
    await confirm.waitFor();
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    assert.deepEqual(await h.chatMessages(page), before);
    // Cancel keeps it too.
    await del.focus();
    await page.keyboard.press('Enter');
    await confirm.getByRole('button', { name: 'Cancel' }).focus();
    await page.keyboard.press('Enter');
    await confirm.waitFor({ state: 'detached' });
    assert.deepEqual(await h.chatMessages(page), before);
    // Focus stays inside the dialog; Delete removes the message.
    await del.focus();
    await page.keyboard.press('Enter');
    await confirm.waitFor();
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab');
      assert.ok(await confirm.evaluate((el) => el.contains(document.activeElement)), 'focus stays in the dialog');
    }
    await confirm.getByRole('button', { name: 'Delete', exact: true }).focus();
    await page.keyboard.press('Enter');
    await confirm.waitFor({ state: 'detached' });
    await until('the message gone', async () => (await h.chatMessages(page)).length === before.length - 1);
    assert.deepEqual(await h.chatMessages(page), before.slice(0, -1));
  });

  test('the agent proposes a prompt that goes into the generator', async () => {
    await page.goto(at('/en/agent'));
    await page.getByRole('heading', { name: 'Prompt agent' }).waitFor();
    await page.getByText('Replies by SmolLM2', { exact: false }).waitFor();
    const box = page.getByRole('textbox', { name: 'Message to the agent' });
    await box.fill('a lighthouse on a cliff in a storm');
    await box.press('Enter');
    await page.getByTestId('agent-user-message').filter({ hasText: 'a lighthouse on a cliff in a storm' }).waitFor();
    const card = page.getByTestId('prompt-card').last();
    await card.getByRole('button', { name: 'Use in generator' }).waitFor({ timeout: WAIT_MS });
    await page.locator('[data-testid="agent-reply"][aria-busy="true"]').waitFor({ state: 'detached', timeout: WAIT_MS });
    const proposed = (await card.locator('.prompt-card__text').textContent())?.trim() ?? '';
    assert.ok(proposed.length > 0, 'the card holds a prompt');
    console.log(`SmolLM2 proposed: ${JSON.stringify(proposed)}`);
    await box.blur();
    await page.mouse.move(0, 0);
    await page.screenshot({ path: path.join(SHOTS, 'agent.png') });

    await card.getByRole('button', { name: 'Use in generator' }).click();
    await page.waitForURL(/\/en\/create$/);
    await promptField().waitFor();
    await until('the proposed prompt in the generator', async () => (await promptField().inputValue()) === proposed);
  });

  test('Polish rewrites a prompt in the generator with the model', async () => {
    await page.goto(at('/en/create'));
    const field = promptField();
    await field.waitFor();
    const original = 'mountain lake at sunrise';
    await field.fill(original);
    await page.getByRole('button', { name: 'Polish', exact: true }).click();
    await page.locator('[data-testid="polish"][data-state="polishing"]').waitFor();
    await page.locator('[data-testid="polish"][data-state="idle"]').waitFor({ timeout: WAIT_MS });
    const polished = (await field.inputValue()).trim();
    assert.ok(polished.length > 0, 'the polished prompt is not empty');
    assert.notEqual(polished, original);
    console.log(`SmolLM2 polished: ${JSON.stringify(polished)}`);
    await page.getByRole('button', { name: 'Undo polish' }).waitFor();
    await page.mouse.move(0, 0);
    await page.screenshot({ path: path.join(SHOTS, 'polish.png') });
  });
});
