// Browser test of prompt polish and the generation agent against the real
// backend (scripted language model, 40 ms per word) and real Chromium: in
// the generator, Polish fills the prompt field progressively over the
// event stream and returns to idle, and Undo restores the original; on
// /agent a message gets a reply that streams in with a prompt card, and
// "Use in generator" puts that prompt into the generator's prompt field.
// Screenshots (scripted model): web/test-results/polish-scripted.png and agent-scripted.png;
// the README's come from real-model.test.mjs.
/* global document, window -- used inside page.evaluate callbacks */
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { signUp } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(WEB_DIR, '..', 'docs', 'screenshots');
const WAIT_MS = 20_000;

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {import('playwright-core').Page} */
let page;
const pageProblems = [];

function promptField() {
  return page.getByRole('tabpanel').getByLabel('Prompt', { exact: true });
}

describe('prompt polish and the generation agent', { timeout: 240_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend({ env: { EASEL_LLM: 'scripted', EASEL_LLM_SCRIPTED_INTERVAL_MS: '40' } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    const login = await signUp(backend.url, { prefix: 'agent', password: 'agent-e2e-pass-1', name: 'Grace' });
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: backend.url });
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
  });

  test('Polish fills the prompt field progressively, returns to idle, and can be undone', async () => {
    await page.goto(new URL('/en/create', backend.url).href);
    const field = promptField();
    await field.waitFor();
    const original = 'a fox in the snow';
    await field.fill(original);
    const polish = page.getByTestId('polish');
    assert.equal(await polish.getAttribute('data-state'), 'idle');

    // Record every value the field takes while polishing.
    await page.evaluate(() => {
      const el = document.querySelector('[role="tabpanel"] textarea');
      window.__polishValues = [];
      const seen = () => {
        const v = el.value;
        if (window.__polishValues.at(-1) !== v) window.__polishValues.push(v);
      };
      window.__polishTimer = setInterval(seen, 10);
    });
    await page.getByRole('button', { name: 'Polish', exact: true }).click();
    await page.locator('[data-testid="polish"][data-state="polishing"]').waitFor();
    await page.getByRole('button', { name: 'Stop polishing' }).waitFor();
    await page.locator('[data-testid="polish"][data-state="idle"]').waitFor({ timeout: 60_000 });
    const values = await page.evaluate(() => {
      clearInterval(window.__polishTimer);
      return window.__polishValues;
    });
    const polished = await field.inputValue();
    assert.notEqual(polished, original);
    assert.ok(polished.trim().length > 0, 'the polished prompt is not empty');
    const steps = values.filter((v) => v !== original);
    assert.ok(steps.length >= 2, `the field filled progressively: ${JSON.stringify(values)}`);
    for (const v of steps.slice(0, -1)) assert.ok(polished.startsWith(v.trimEnd()), `"${v}" is a prefix of "${polished}"`);
    const undo = page.getByRole('button', { name: 'Undo polish' });
    await undo.waitFor();
    // The README's pictures come from the real model (real-model.test.mjs).
    await mkdir(path.join(WEB_DIR, 'test-results'), { recursive: true });
    await page.screenshot({ path: path.join(WEB_DIR, 'test-results', 'polish-scripted.png'), fullPage: false });
    await undo.click();
    assert.equal(await field.inputValue(), original);
    await undo.waitFor({ state: 'detached' });
  });

  test('the agent streams a reply with a prompt card that goes into the generator', async () => {
    await page.getByRole('banner').getByRole('link', { name: 'Agent' }).click();
    await page.waitForURL(/\/en\/agent$/);
    await page.getByRole('heading', { name: 'Prompt agent' }).waitFor();
    await page.getByText('Replies by Scripted test model', { exact: false }).waitFor();
    // The starter templates.
    assert.ok((await page.locator('.chip').count()) > 0, 'preset chips are shown');
    await page.getByText('No conversations yet.').waitFor();

    const box = page.getByRole('textbox', { name: 'Message to the agent' });
    await box.fill('a lighthouse on a cliff in a storm');
    await box.press('Enter');
    await page.getByTestId('agent-user-message').filter({ hasText: 'a lighthouse on a cliff in a storm' }).waitFor();
    // The reply streams in: seen while still being written, then complete.
    await page.locator('[data-testid="agent-reply"][aria-busy="true"]').waitFor();
    const card = page.getByTestId('prompt-card').last();
    await card.getByRole('button', { name: 'Use in generator' }).waitFor({ timeout: 60_000 });
    await page.locator('[data-testid="agent-reply"][aria-busy="true"]').waitFor({ state: 'detached', timeout: 60_000 });
    const proposed = (await card.locator('.prompt-card__text').textContent())?.trim() ?? '';
    assert.ok(proposed.length > 0, 'the card holds a prompt');
    // The conversation is listed with its title.
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: /a lighthouse on a cliff/ }).waitFor();

    await card.getByRole('button', { name: 'Copy' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), proposed);
    await page.screenshot({ path: path.join(WEB_DIR, 'test-results', 'agent-scripted.png'), fullPage: false });

    // History survives a reload.
    await page.reload();
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: /a lighthouse on a cliff/ }).click();
    await page.getByTestId('prompt-card').last().getByRole('button', { name: 'Use in generator' }).click();
    await page.waitForURL(/\/en\/create$/);
    await promptField().waitFor();
    const deadline = Date.now() + WAIT_MS;
    while ((await promptField().inputValue()) !== proposed && Date.now() < deadline) await page.waitForTimeout(50);
    assert.equal(await promptField().inputValue(), proposed);

    // An image attachment: uploaded, then sent as an image part beside the text.
    await page.goto(new URL('/en/agent', backend.url).href);
    await page.getByRole('button', { name: 'New conversation' }).click();
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    await page.locator('.agent-composer input[type="file"]').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: png });
    await page.getByRole('img', { name: 'Attached image' }).waitFor();
    const box2 = page.getByRole('textbox', { name: 'Message to the agent' });
    await box2.fill('make this dot a sunrise');
    await page.getByRole('button', { name: 'Send' }).click();
    const sent = page.getByTestId('agent-user-message').filter({ hasText: 'make this dot a sunrise' });
    await sent.waitFor();
    await sent.getByRole('img', { name: 'Attached image' }).waitFor();
    await page.getByTestId('prompt-card').last().getByRole('button', { name: 'Use in generator' }).waitFor({ timeout: 60_000 });
    assert.equal(await page.getByRole('navigation', { name: 'Conversations' }).getByRole('listitem').count(), 2);
    // After the reply the server's history replaces the local copy: still one message with text and image.
    await page.locator('[data-testid="agent-reply"][aria-busy="true"]').waitFor({ state: 'detached' });
    await page.waitForTimeout(500);
    assert.equal(await page.getByTestId('agent-user-message').count(), 1);
    await sent.getByRole('img', { name: 'Attached image' }).waitFor();

    // A phone width: the conversation list stacks above the chat.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(new URL('/en/agent', backend.url).href);
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: /a lighthouse on a cliff/ }).click();
    await page.getByTestId('prompt-card').last().waitFor();
    await mkdir(path.join(WEB_DIR, 'test-results'), { recursive: true });
    await page.screenshot({ path: path.join(WEB_DIR, 'test-results', 'e2e-agent-phone.png'), fullPage: true });
    assert.deepEqual(pageProblems, []);
  });
});
