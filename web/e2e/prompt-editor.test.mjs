/* global window */
// Browser test of the prompt editor against the real backend (for the
// dictionary and translations) and real Chromium: type a prompt with weights,
// step a weight, toggle a list off, drag a chip to another list, switch the
// dialect, import `?prompts=` (read once, then removed from the URL), the
// dictionary pad on a wide window and not on a narrow one, a translation
// badge in Chinese. Screenshots go to docs/screenshots/.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = path.resolve(WEB_DIR, '..', 'docs', 'screenshots');
const TIMEOUT_MS = 15_000;

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {import('playwright-core').Page} */
let page;
const pageProblems = [];

function editorUrl(locale = 'en', search = '') {
  return new URL(`/${locale}/prompt-editor${search}`, backend.url).href;
}

/** The texts of the chips of one list type (all groups). */
function chipTexts(list) {
  return page.locator(`[data-testid="list-${list}"] .chip__text`).allTextContents();
}

function promptBox() {
  return page.getByLabel('Prompt', { exact: true });
}

async function newPage(viewport) {
  const context = await browser.newContext({ viewport });
  const p = await context.newPage();
  p.setDefaultTimeout(TIMEOUT_MS);
  p.on('pageerror', (e) => pageProblems.push(`pageerror: ${e.message}`));
  p.on('console', (m) => {
    if (m.type() === 'error' && /Content.Security.Policy/i.test(m.text())) pageProblems.push(`csp: ${m.text()}`);
  });
  return p;
}

describe('prompt editor against the real backend', { timeout: 180_000 }, () => {
  before(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    backend = await startBackend();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    page = await newPage({ width: 1300, height: 900 });
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await backend?.stop();
    }
  });

  test('typing a prompt with weights makes chips with weights', async () => {
    await page.goto(editorUrl());
    await page.getByRole('heading', { name: 'Prompt editor' }).waitFor();
    await promptBox().fill('(red fox:1.3), forest, [fog], snow');
    await page.getByLabel('Negative prompt').fill('blurry, (lowres:1.2)');
    assert.deepEqual(await chipTexts('normal'), ['red fox', 'forest', 'fog', 'snow']);
    assert.deepEqual(await chipTexts('negative'), ['blurry', 'lowres']);
    const fox = page.locator('[data-testid="list-normal"] .chip').filter({ hasText: 'red fox' });
    assert.equal(await fox.getByTestId('chip-weight').textContent(), '1.3');
    assert.equal(await page.locator('[data-testid="list-normal"] .chip').filter({ hasText: 'forest' }).getByTestId('chip-weight').count(), 0, 'no weight shown for 1');
    assert.equal(await page.locator('[data-testid="list-normal"] .chip').filter({ hasText: 'fog' }).getByTestId('chip-weight').textContent(), '0.91');
  });

  test('+ steps a weight by 1.1 and the text follows', async () => {
    await page.getByRole('button', { name: 'Increase the weight of forest' }).click();
    const forest = page.locator('[data-testid="list-normal"] .chip').filter({ hasText: 'forest' });
    assert.equal(await forest.getByTestId('chip-weight').textContent(), '1.1');
    assert.equal(await promptBox().inputValue(), '(red fox:1.3), (forest), [fog], snow');
    await page.getByRole('button', { name: 'Decrease the weight of forest' }).click();
    assert.equal(await forest.getByTestId('chip-weight').count(), 0);
  });

  test('the disable-all toggle turns a list off and on', async () => {
    const toggle = page.getByRole('button', { name: 'Turn all words of Negative on or off' });
    await toggle.click();
    assert.equal(await page.getByLabel('Negative prompt').inputValue(), '');
    assert.equal(await page.locator('[data-testid="list-negative"] .chip--disabled').count(), 2);
    assert.equal(await toggle.textContent(), 'Turn all on');
    await toggle.click();
    assert.equal(await page.getByLabel('Negative prompt').inputValue(), 'blurry, (lowres:1.2)');
  });

  test('a chip dragged more than 10 px moves to another list', async () => {
    const snow = page.locator('[data-testid="list-normal"] .chip').filter({ hasText: 'snow' }).locator('.chip__label');
    const target = page.locator('[data-testid="list-style"] [data-drop-list]');
    const from = await snow.boundingBox();
    const to = await target.boundingBox();
    assert.ok(from && to);
    // A 6 px wobble is a click-in-progress, not a drag.
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2 + 6, from.y + from.height / 2, { steps: 3 });
    assert.equal(await page.locator('.chip--ghost').count(), 0);
    await page.mouse.move(to.x + 20, to.y + to.height / 2, { steps: 12 });
    await page.locator('.chip--ghost').waitFor();
    await page.mouse.up();
    assert.deepEqual(await chipTexts('style'), ['snow']);
    assert.deepEqual(await chipTexts('normal'), ['red fox', 'forest', 'fog']);
    // Not toggled by the drag's click.
    assert.equal(await page.locator('[data-testid="list-style"] .chip--disabled').count(), 0);
    await page.getByTestId('dictionary-pad').locator('.dictionary__term').first().waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(SCREENSHOTS, 'prompt-editor.png'), fullPage: true });
  });

  test('switching to the bot dialect re-renders the text with the same words', async () => {
    await page.locator('label.segmented', { hasText: 'Bot (word::1.2 --ar)' }).click();
    // `forest::` ends forest's segment so fog's weight stays its own; `--no` carries no weights.
    assert.equal(await promptBox().inputValue(), 'red fox::1.3 forest:: fog::0.91 snow --no blurry, lowres');
    assert.equal(await page.getByLabel('Negative prompt').count(), 0);
    await page.locator('label.segmented', { hasText: 'Web UI (word:1.2)' }).click();
    assert.equal(await promptBox().inputValue(), '(red fox:1.3), forest, [fog], snow');
    assert.equal(await page.getByLabel('Negative prompt').inputValue(), 'blurry, (lowres:1.2)');
  });

  test('a wide window shows the dictionary pad; clicking a term adds it', async () => {
    const pad = page.getByTestId('dictionary-pad');
    await pad.waitFor();
    await pad.getByText('v1.4.3').waitFor();
    const first = pad.locator('.dictionary__term').first();
    await first.waitFor();
    const term = (await first.locator('span').first().textContent())?.trim();
    assert.ok(term);
    await first.click();
    assert.match(await promptBox().inputValue(), new RegExp(term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    await page.getByRole('button', { name: 'Hide dictionary' }).click();
    await pad.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Show dictionary' }).click();
    await pad.waitFor();
  });

  test('?prompts= is read once and removed from the URL', async () => {
    await page.goto(editorUrl('en', `?prompts=${encodeURIComponent('["a cat"]')}`));
    await page.getByRole('heading', { name: 'Prompt editor' }).waitFor();
    await page.waitForFunction(() => !window.location.search.includes('prompts'));
    assert.equal(new URL(page.url()).search, '');
    assert.ok((await chipTexts('normal')).includes('a cat'));
    assert.match(await promptBox().inputValue(), /a cat/);
  });

  test('a narrow window hides the dictionary pad by default', async () => {
    const phone = await newPage({ width: 390, height: 844 });
    await phone.goto(editorUrl('en', `?prompts=${encodeURIComponent('["(lighthouse:1.2), sea, --ar 9:16"]')}`));
    await phone.getByRole('heading', { name: 'Prompt editor' }).waitFor();
    await phone.locator('.chip').first().waitFor();
    assert.equal(await phone.getByTestId('dictionary-pad').count(), 0);
    await phone.getByRole('button', { name: 'Show dictionary' }).waitFor();
    await phone.evaluate(() => window.scrollTo(0, 0));
    await phone.screenshot({ path: path.join(SCREENSHOTS, 'prompt-editor-phone.png'), fullPage: true });
    await phone.context().close();
  });

  test('in Chinese, an English word gets a translation badge', async () => {
    const zh = await newPage({ width: 1300, height: 900 });
    await zh.goto(new URL(`/zhCN/prompt-editor?prompts=${encodeURIComponent('["girl"]')}`, backend.url).href);
    await zh.getByRole('heading', { name: '提示词编辑器' }).waitFor();
    const badge = zh.locator('[data-testid="list-normal"] .chip').filter({ hasText: 'girl' }).getByTestId('chip-badge');
    await badge.waitFor();
    assert.equal(await badge.textContent(), '女孩');
    await zh.context().close();
  });

  test('no page errors or CSP reports', () => {
    assert.deepEqual(pageProblems, []);
  });
});
