// Browser test of documents to datacards (issue 22 part 7) against the real
// backend binary and real Chromium: a user opens a chat with their own
// character, imports a Markdown file from the datacard panel, watches the
// progress reach "Done", sees the three cards titled by the document's
// headings (marked as made from it), edits one, and picking a picture named
// .md answers the server's "not a document" message.
// Screenshot: docs/screenshots/tavern-rag-import.png.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import * as h from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(WEB_DIR, '..', 'docs', 'screenshots');
const WAIT_MS = 20_000;

const LORE = `# The Kingdom of Oru

Oru is a small realm by the sea. Its queen, Ana, rules from a tower of salt.

## People

Fishers and weavers live in the low town.

## Magic

Magic is rare and feared.
`;

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {import('playwright-core').Page} */
let page;
let token = '';
const pageProblems = [];

const post = (pathname, body) => h.apiPost(backend.url, pathname, body, token);
const at = (p) => new URL(p, backend.url).href;
const until = (what, check) => h.until(page, what, check, WAIT_MS);

/** Picks a file through the import button's file chooser. */
async function pick(panel, file) {
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), panel.getByRole('button', { name: /Import (from a document|another)/ }).click()]);
  await chooser.setFiles(file);
}

describe('documents to datacards', { timeout: 180_000 }, () => {
  let characterId = '';

  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend({ env: { EASEL_LLM: 'scripted' } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    const login = await h.signUp(backend.url, { prefix: 'rag', password: 'rag-e2e-pass-1', name: 'Tess' });
    token = login.token;
    ({ id: characterId } = await post('/api/v1/tavern-pro/publish', { name: 'Ana of Oru', greeting: 'Welcome to Oru.', published: true }));
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
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

  test('imports a Markdown file into the character and lists its cards', async () => {
    await page.goto(at(`/en/tavern/chat/${encodeURIComponent(characterId)}`));
    await until('the chat', async () => (await h.chatMessages(page)).length === 1);
    await page.getByRole('button', { name: 'Datacards' }).click();
    const panel = page.getByTestId('datacards-panel');
    await panel.getByText('You have no datacards yet.').waitFor();
    const box = panel.getByTestId('rag-import');
    await box.getByText(/becomes datacards for Ana of Oru/).waitFor();

    // Every progress report the page receives, to check it only moves forward.
    const seen = [];
    page.on('response', async (res) => {
      if (!res.url().endsWith('/api/v1/langflow/progress')) return;
      try {
        const j = await res.json();
        seen.push(j.data.percent);
      } catch {
        /* the page may have gone */
      }
    });
    await pick(panel, { name: 'oru.md', mimeType: 'text/markdown', buffer: Buffer.from(LORE) });
    const bar = box.getByRole('progressbar', { name: 'Import progress' });
    await bar.waitFor();
    await box.getByTestId('rag-state').filter({ hasText: 'Done: 3 datacards made from oru.md.' }).waitFor();
    assert.equal(await bar.getAttribute('value'), '100');
    assert.ok(seen.length >= 1, 'progress was polled');
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => a - b),
    );

    // The cards, in document order, marked and editable.
    await until('three imported cards', async () => (await panel.getByTestId('rag-made').count()) === 3);
    const titles = await panel.locator('.datacard__title').allTextContents();
    assert.deepEqual(titles.slice(0, 3), ['The Kingdom of Oru', 'People', 'Magic']);
    await page.screenshot({ path: path.join(SHOTS, 'tavern-rag-import.png') });
    const magic = panel.locator('li.datacard').filter({ hasText: 'Magic is rare and feared.' });
    await magic.getByRole('button', { name: 'Edit' }).click();
    await panel.getByLabel('Title').fill('Magic of Oru');
    await panel.getByRole('button', { name: 'Save' }).click();
    await panel.locator('.datacard__title').filter({ hasText: 'Magic of Oru' }).waitFor();
    const cards = await post('/api/v1/langflow/character-datacards', { character_id: characterId });
    assert.deepEqual(
      cards.items.map((c) => c.title),
      ['The Kingdom of Oru', 'People', 'Magic of Oru'],
    );
  });

  test('a picture named .md is refused with the server message', async () => {
    const panel = page.getByTestId('datacards-panel');
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    await pick(panel, { name: 'not-lore.md', mimeType: 'text/markdown', buffer: png });
    await panel.getByRole('alert').filter({ hasText: 'This file is not a text, Markdown, HTML or PDF document.' }).waitFor();
  });
});
