// Browser test of the tavern against the real backend binary (scripted
// language model: word deltas every 60 ms, "You said: …") and real Chromium.
// A user signs up, creates a character through the form (with an uploaded
// picture), finds it in the grid, starts a chat and sees the greeting, sends
// a message and watches the reply stream in over socket frames 11, stops a
// reply mid-stream, reloads and sees the same history, reloads mid-reply (and
// loses its socket mid-reply) and gets the rest without duplicated text,
// regenerates, binds a datacard, downloads and imports V2 cards.
// Screenshots: docs/screenshots/tavern-grid.png, tavern-edit.png,
// tavern-detail.png, tavern-chat.png (mid-stream), tavern-datacards.png,
// tavern-phone.png.
/* global document, window, MutationObserver -- used inside page.evaluate callbacks */
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(WEB_DIR, '..', 'docs', 'screenshots');
const WAIT_MS = 20_000;

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {import('playwright-core').BrowserContext | undefined} */
let context;
/** @type {import('playwright-core').Page} */
let page;
let token = '';
const pageProblems = [];

async function post(pathname, body, withToken = token) {
  const res = await fetch(new URL(pathname, backend.url), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(withToken ? { token: withToken } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  assert.equal(json.status?.code, 10000, `${pathname}: ${JSON.stringify(json.status)}`);
  return json.data;
}

const at = (p) => new URL(p, backend.url).href;

async function online() {
  await page.getByTestId('socket-state').filter({ hasText: /^online$/ }).waitFor();
}

/** The chat's messages as {role, state, text}, in order. */
async function chatMessages() {
  return page.getByTestId('chat-message').evaluateAll((els) =>
    els.map((el) => ({
      role: el.getAttribute('data-role'),
      state: el.getAttribute('data-state'),
      text: el.querySelector('[data-testid="message-text"]')?.textContent ?? '',
    })),
  );
}

async function until(what, check) {
  const deadline = Date.now() + WAIT_MS;
  let last;
  while (Date.now() < deadline) {
    last = await check();
    if (last) return last;
    await page.waitForTimeout(40);
  }
  assert.fail(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
}

/** Records the newest assistant message's text and state on every DOM change. */
async function watchLastReply() {
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    w.__replyLog = [];
    const record = () => {
      const all = document.querySelectorAll('[data-testid="chat-message"][data-role="assistant"]');
      const last = all[all.length - 1];
      if (!last) return;
      const text = last.querySelector('[data-testid="message-text"]')?.textContent ?? '';
      const state = last.getAttribute('data-state');
      const prev = w.__replyLog[w.__replyLog.length - 1];
      if (!prev || prev.text !== text || prev.state !== state) w.__replyLog.push({ id: last.getAttribute('data-msg-id'), text, state });
    };
    w.__replyObserver?.disconnect();
    w.__replyObserver = new MutationObserver(record);
    w.__replyObserver.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
}

async function replyLog() {
  return page.evaluate(() => /** @type {any} */ (window).__replyLog);
}

async function send(text) {
  const box = page.getByRole('textbox', { name: /^Message / });
  await box.fill(text);
  await box.press('Enter');
}

/** A small PNG made by the browser's canvas. */
async function portraitPng() {
  const b64 = await page.evaluate(() => {
    const c = document.createElement('canvas');
    c.width = 256;
    c.height = 320;
    const g = c.getContext('2d');
    const grad = g.createLinearGradient(0, 0, 256, 320);
    grad.addColorStop(0, '#5b4cf0');
    grad.addColorStop(1, '#f0a04c');
    g.fillStyle = grad;
    g.fillRect(0, 0, 256, 320);
    g.fillStyle = '#fff';
    g.beginPath();
    g.arc(128, 130, 62, 0, Math.PI * 2);
    g.fill();
    g.fillRect(48, 210, 160, 110);
    return c.toDataURL('image/png').split(',')[1];
  });
  return Buffer.from(b64, 'base64');
}

describe('the tavern', { timeout: 240_000 }, () => {
  let characterId = '';
  let chatUrl = '';

  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend({ env: { EASEL_LLM: 'scripted', EASEL_LLM_SCRIPTED_INTERVAL_MS: '60' } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    const login = await post(
      '/api/v1/account/sign-up',
      { email: `tavern.${Date.now()}@example.com`, password: 'tavern-e2e-pass-1', name: 'Mira' },
      '',
    );
    token = login.token;
    context = await browser.newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: backend.url });
    await context.addCookies([{ name: 'T', value: token, url: backend.url, sameSite: 'Lax' }]);
    // Keeps the page's WebSockets reachable, so a test can drop the connection mid-reply.
    await context.addInitScript(() => {
      const Native = window.WebSocket;
      const w = /** @type {any} */ (window);
      w.__sockets = [];
      w.WebSocket = class extends Native {
        constructor(...args) {
          super(...args);
          w.__sockets.push(this);
        }
      };
    });
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

  test('creates a character through the form, with an uploaded picture', async () => {
    await page.goto(at('/en/'));
    await online();
    await page.getByRole('banner').getByRole('link', { name: 'Tavern' }).click();
    await page.waitForURL(/\/en\/tavern$/);
    await page.getByRole('navigation', { name: 'Tavern sections' }).getByRole('link', { name: 'New character' }).click();
    await page.waitForURL(/\/en\/tavern\/new$/);
    const form = page.getByTestId('character-form');
    await form.getByLabel('Upload a picture').setInputFiles({ name: 'portrait.png', mimeType: 'image/png', buffer: await portraitPng() });
    await form.locator('img.tv-avatar').waitFor();
    await form.getByLabel('Name', { exact: true }).fill('Captain Wren');
    await form.getByLabel('Description').fill('A retired sky-ship captain who tells tall tales over tea.');
    await form.getByLabel('Gender').selectOption('female');
    await form.getByLabel('Persona').fill('Wren is warm, wry and a little boastful. She speaks in short, salty sentences.');
    await form.getByLabel('Scenario').fill('A quiet harbour tavern on a rainy evening.');
    await form.getByLabel('Greeting').fill('Ahoy! Pull up a chair, the kettle is on.');
    await form.getByLabel('Example dialogue').fill('{{user}}: Any stories?\n{{char}}: Plenty. Sit down.');
    await form.getByLabel('Tags').fill('adventure, sky, #tea');
    // The whole form in one picture: a tall window rather than a full-page capture (the header is sticky).
    await page.setViewportSize({ width: 1280, height: 1640 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(SHOTS, 'tavern-edit.png') });
    await page.setViewportSize({ width: 1280, height: 860 });
    await form.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/en\/tavern\/character\/[^/]+$/);
    characterId = decodeURIComponent(page.url().split('/').pop());
    const detail = page.getByTestId('character-detail');
    await detail.getByRole('heading', { name: 'Captain Wren' }).waitFor();
    await detail.getByText('A quiet harbour tavern on a rainy evening.').waitFor();
    assert.match(await detail.locator('img.tv-avatar').getAttribute('src'), /\/files\//);
  });

  test('finds it in the grid, with the filters', async () => {
    // A few more published characters so the grid is a grid.
    for (const [name, gender, type] of [
      ['Professor Quill', 'male', 2],
      ['Juniper', 'non_binary', 1],
      ['Atlas the Cartographer', 'male', 1],
    ]) {
      await post('/api/v1/tavern-pro/publish', {
        name,
        description: `${name} is ready to talk.`,
        persona: `${name} is helpful.`,
        greeting: `Hello, I am ${name}.`,
        tags: ['demo'],
        gender,
        character_type: type,
      });
    }
    await page.goto(at('/en/tavern'));
    const cards = page.getByTestId('character-card');
    await until('four cards', async () => (await cards.count()) === 4);
    await cards.filter({ hasText: 'Captain Wren' }).waitFor();
    await page.getByText('Tool', { exact: true }).click();
    await until('only the tool', async () => {
      const names = await cards.locator('.role-card__name').allTextContents();
      return names.length === 1 && names[0] === 'Professor Quill';
    });
    await page.getByText('All', { exact: true }).click();
    await page.getByRole('searchbox', { name: 'Search characters' }).fill('wren');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await until('the search result', async () => {
      const names = await cards.locator('.role-card__name').allTextContents();
      return names.length === 1 && names[0] === 'Captain Wren';
    });
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await until('four cards again', async () => (await cards.count()) === 4);
    await page.screenshot({ path: path.join(SHOTS, 'tavern-grid.png') });
    await cards.filter({ hasText: 'Captain Wren' }).getByRole('link').click();
    await page.waitForURL(new RegExp(`/en/tavern/character/${characterId}$`));
    await page.getByTestId('character-detail').getByRole('heading', { name: 'Captain Wren' }).waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'tavern-detail.png') });
  });

  test('downloads the character as a V2 card, JSON and PNG', async () => {
    const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download card (JSON)' }).click()]);
    const card = JSON.parse(await readFile(await json.path(), 'utf8'));
    assert.equal(card.spec, 'chara_card_v2');
    assert.equal(card.data.name, 'Captain Wren');
    assert.equal(card.data.first_mes, 'Ahoy! Pull up a chair, the kettle is on.');
    const [png] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download card (PNG)' }).click()]);
    assert.match(png.suggestedFilename(), /\.png$/);
    const bytes = await readFile(await png.path());
    assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.ok(bytes.includes(Buffer.from('chara')), 'the card is inside the PNG');
  });

  test('starts a chat, sees the greeting and a reply streaming in', async () => {
    await page.getByRole('button', { name: 'Start a chat' }).click();
    await page.waitForURL(/\/en\/tavern\/chat\/[^/]+\/[^/]+$/);
    chatUrl = page.url();
    await online();
    await until('the greeting', async () => {
      const m = await chatMessages();
      return m.length === 1 && m[0].role === 'assistant' && m[0].text === 'Ahoy! Pull up a chair, the kettle is on.' && m;
    });
    await watchLastReply();
    const said = 'Tell me about the storm over the northern sea and how the crew kept the ship flying all night';
    await send(said);
    const expected = `You said: ${said}`;
    await until('the reply to finish', async () => {
      const m = await chatMessages();
      return m.length === 3 && m[2].state === 'done' && m;
    });
    const m = await chatMessages();
    assert.deepEqual(
      m.map((x) => [x.role, x.text]),
      [
        ['assistant', 'Ahoy! Pull up a chair, the kettle is on.'],
        ['user', said],
        ['assistant', expected],
      ],
    );
    // The text grew over several observations while streaming, each a prefix of the next.
    const log = (await replyLog()).filter((e) => e.text !== 'Ahoy! Pull up a chair, the kettle is on.');
    const streaming = log.filter((e) => e.state === 'streaming' && e.text !== '');
    assert.ok(streaming.length >= 2, `at least two partial texts seen: ${JSON.stringify(log)}`);
    for (let i = 1; i < streaming.length; i++) {
      assert.ok(streaming[i].text.length > streaming[i - 1].text.length, 'the text grows');
      assert.ok(streaming[i].text.startsWith(streaming[i - 1].text), 'new text is appended, never rewritten');
    }
    assert.ok(expected.startsWith(streaming[streaming.length - 1].text));
    assert.equal(log[log.length - 1].text, expected);
    // The model is named under the reply, and said not to be neural.
    const label = page.getByTestId('model-label').last();
    await label.getByText('Scripted test model', { exact: false }).waitFor();
    await label.getByText('not a neural model').waitFor();
  });

  test('stops a reply mid-stream and keeps the partial text', async () => {
    await watchLastReply();
    const said = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    await send(said);
    await until('a partial reply', async () => {
      const m = await chatMessages();
      return m.length === 5 && m[4].state === 'streaming' && m[4].text.split(' ').length >= 6;
    });
    await page.screenshot({ path: path.join(SHOTS, 'tavern-chat.png') });
    await page.getByRole('button', { name: 'Stop' }).click();
    const m = await until('the stopped reply', async () => {
      const all = await chatMessages();
      return all.length === 5 && all[4].state === 'cancelled' && all;
    });
    const full = `You said: ${said}`;
    assert.ok(m[4].text.length > 0 && m[4].text.length < full.length, `partial: ${m[4].text}`);
    assert.ok(full.startsWith(m[4].text));
    await page.getByText('Stopped', { exact: true }).waitFor();
    // Nothing more arrives after the stop.
    await page.waitForTimeout(400);
    assert.equal((await chatMessages())[4].text, m[4].text);
  });

  test('reloads and sees the same history', async () => {
    const before = await chatMessages();
    await page.reload();
    await online();
    const after = await until('the history', async () => {
      const m = await chatMessages();
      return m.length === before.length && m;
    });
    assert.deepEqual(after, before);
  });

  test('reloads mid-reply and gets the rest without duplicated text', async () => {
    const said = Array.from({ length: 50 }, (_, i) => `tide${i}`).join(' ');
    await send(said);
    await until('the reply under way', async () => {
      const m = await chatMessages();
      return m.length === 7 && m[6].state === 'streaming' && m[6].text.split(' ').length >= 5;
    });
    await page.reload();
    const m = await until('the whole reply after the reload', async () => {
      const all = await chatMessages();
      return all.length === 7 && all[6].state === 'done' && all;
    });
    assert.equal(m[6].text, `You said: ${said}`);
    assert.equal(m[5].text, said);
    assert.equal(page.url(), chatUrl);
  });

  test('regenerates the last reply', async () => {
    await watchLastReply();
    await page.getByTestId('chat-message').last().hover();
    await page.getByRole('button', { name: /Regenerate/ }).click();
    const m = await until('the regenerated reply', async () => {
      const all = await chatMessages();
      return all.length === 7 && all[6].state === 'done' && (await replyLog()).some((e) => e.state === 'streaming') && all;
    });
    assert.match(m[6].text, /^You said: tide0 tide1/);
    await page.getByTestId('chat-message').last().getByTestId('model-label').getByText('not a neural model').waitFor();
  });

  test('a socket dropped mid-reply reconnects and the reply ends whole, without repeats', async () => {
    const said = Array.from({ length: 120 }, (_, i) => `gale${i}`).join(' ');
    await send(said);
    await until('the reply under way', async () => {
      const m = await chatMessages();
      return m.length === 9 && m[8].state === 'streaming' && m[8].text.split(' ').length >= 5;
    });
    await page.evaluate(() => {
      const sockets = /** @type {any} */ (window).__sockets;
      sockets[sockets.length - 1].close();
    });
    await page.getByTestId('socket-state').filter({ hasText: /^reconnecting$/ }).waitFor();
    const m = await until('the whole reply after the reconnect', async () => {
      const all = await chatMessages();
      return all.length === 9 && all[8].state === 'done' && all;
    });
    assert.equal(m[8].text, `You said: ${said}`);
  });

  test('makes a datacard and binds it to the chat', async () => {
    await page.getByRole('button', { name: 'Datacards' }).click();
    const panel = page.getByTestId('datacards-panel');
    await panel.getByText('You have no datacards yet.').waitFor();
    await panel.getByRole('button', { name: /New datacard/ }).click();
    await panel.getByLabel('Title').fill('The ship');
    await panel.getByLabel('Content').fill('The Kestrel: a three-masted sky-ship with a brass hull.');
    await panel.getByRole('button', { name: 'Save' }).click();
    const box = panel.getByRole('checkbox', { name: 'The ship' });
    await box.waitFor();
    await until('the card bound to the chat', async () => box.isChecked());
    await page.screenshot({ path: path.join(SHOTS, 'tavern-datacards.png') });
    await box.uncheck();
    await until('the card unbound', async () => !(await box.isChecked()));
    await box.check();
    // The binding is the server's: it survives a reload.
    await page.reload();
    await page.getByRole('button', { name: 'Datacards' }).click();
    await until('the binding after a reload', async () => page.getByTestId('datacards-panel').getByRole('checkbox', { name: 'The ship' }).isChecked());
  });

  test('suggests replies as chips that fill the message box', async () => {
    await page.getByRole('button', { name: /Suggest replies/ }).click();
    const chips = page.getByTestId('suggestion');
    await chips.first().waitFor();
    const first = (await chips.first().textContent()) ?? '';
    assert.ok(first.trim().length > 0);
    await chips.first().click();
    assert.equal(await page.getByRole('textbox', { name: /^Message / }).inputValue(), first);
    await page.getByRole('textbox', { name: /^Message / }).fill('');
  });

  test('imports a V2 JSON card', async () => {
    const card = {
      spec: 'chara_card_v2',
      spec_version: '2.0',
      data: {
        name: 'Seraphina Vale',
        description: 'A lighthouse keeper who collects lost letters.',
        personality: 'Gentle, curious and patient.',
        scenario: 'The top of the lighthouse at dusk.',
        first_mes: 'Oh! A visitor. Mind the stairs.',
        mes_example: '<START>\n{{user}}: Hello?\n{{char}}: Up here!',
        creator_notes: 'Imported in a test.',
        system_prompt: '',
        post_history_instructions: '',
        alternate_greetings: ['Back again?'],
        tags: ['mystery', 'sea'],
        creator: 'someone',
        character_version: '1',
        extensions: {},
      },
    };
    await page.goto(at('/en/tavern/mine'));
    await page.getByLabel('Import a card').setInputFiles({
      name: 'seraphina.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(card)),
    });
    await page.waitForURL(/\/en\/tavern\/character\/[^/]+\/edit$/);
    const form = page.getByTestId('character-form');
    await until('the imported name', async () => (await form.getByLabel('Name', { exact: true }).inputValue()) === 'Seraphina Vale');
    assert.equal(await form.getByLabel('Greeting').inputValue(), 'Oh! A visitor. Mind the stairs.');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/en\/tavern\/character\/[^/]+$/);
    await page.getByTestId('character-detail').getByRole('heading', { name: 'Seraphina Vale' }).waitFor();
  });

  test('fits a phone screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(chatUrl);
    await online();
    await until('the history', async () => (await chatMessages()).length === 9);
    await page.getByRole('textbox', { name: /^Message / }).waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'tavern-phone.png') });
    // The tavern's own content never scrolls sideways (the shared site header is checked elsewhere).
    const wide = await page.evaluate(() =>
      [...document.querySelectorAll('main *')]
        .filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
        .slice(0, 5)
        .map((el) => `${el.tagName}.${el.className}`),
    );
    assert.deepEqual(wide, [], 'nothing in the page is wider than the screen');
  });
});
