// Browser test of the tavern against the real backend binary (scripted
// language model: word deltas every 60 ms, "You said: …") and real Chromium.
// A user signs up, creates a character through the form (with an uploaded
// picture), finds it in the grid, starts a chat and sees the greeting, sends
// a message and watches the reply stream in over socket frames 11, stops a
// reply mid-stream, reloads and sees the same history, reloads mid-reply (and
// loses its socket mid-reply) and gets the rest without duplicated text,
// regenerates, binds a datacard, downloads and imports V2 cards.
// Also: starter templates in the form, polish with undo, chat settings and
// rename, older messages on scrolling up, the recently chatted row, "Chat
// now" from the grid (and the login dialog for visitors), delete all chats.
// And the side calls: the model named on the character page, the chat
// persona (from the header and from the chat settings), the draft preview,
// picture prompts handed to the generator, and reporting someone else's
// character (their pictures go to web/test-results/tavern-*.png).
// Screenshots: docs/screenshots/tavern-grid.png (with the recent row),
// tavern-edit.png, tavern-detail.png, tavern-chat.png (mid-stream),
// tavern-datacards.png, tavern-settings.png, tavern-phone.png,
// tavern-phone-grid.png.
/* global document, window -- used inside page.evaluate callbacks */
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import * as h from './helpers.mjs';

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

/** An API call as the signed-up user (or with `withToken`; '' for none), asserting it succeeds; answers its data. */
const post = (pathname, body, withToken = token) => h.apiPost(backend.url, pathname, body, withToken);
const at = (p) => new URL(p, backend.url).href;
const until = (what, check) => h.until(page, what, check, WAIT_MS);

async function send(text) {
  const box = page.getByRole('textbox', { name: /^Message / });
  await box.fill(text);
  await box.press('Enter');
}

describe('the tavern', { timeout: 300_000 }, () => {
  let characterId = '';
  let chatUrl = '';

  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend({ env: { EASEL_LLM: 'scripted', EASEL_LLM_SCRIPTED_INTERVAL_MS: '60' } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    const login = await h.signUp(backend.url, { prefix: 'tavern', password: 'tavern-e2e-pass-1', name: 'Mira' });
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
    await h.online(page);
    await page.getByRole('banner').getByRole('link', { name: 'Tavern' }).click();
    await page.waitForURL(/\/en\/tavern$/);
    await page.getByRole('navigation', { name: 'Tavern sections' }).getByRole('link', { name: 'New character' }).click();
    await page.waitForURL(/\/en\/tavern\/new$/);
    const form = page.getByTestId('character-form');
    await h.uploadCharacterPicture(form, 'portrait.png', await h.portraitPng(page));
    // Starter templates fill persona, greeting and scenario; written text is only replaced after a confirm.
    await form.getByTestId('preset').filter({ hasText: 'Patient tutor' }).click();
    assert.match(await form.getByLabel('Persona').inputValue(), /patient teacher/);
    assert.equal(await form.getByLabel('Greeting').inputValue(), 'Hello! What would you like to learn today?');
    await form.getByLabel('Persona').fill('My own persona.');
    await form.getByTestId('preset').filter({ hasText: 'Noir detective' }).click();
    const ask = page.getByRole('dialog', { name: 'Use the template "Noir detective"?' });
    await ask.getByText('This replaces what you wrote in: Persona, Greeting, Scenario.').waitFor();
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'detached' });
    assert.equal(await form.getByLabel('Persona').inputValue(), 'My own persona.');
    await form.getByTestId('preset').filter({ hasText: 'Noir detective' }).click();
    await ask.getByRole('button', { name: 'Replace' }).click();
    assert.match(await form.getByLabel('Persona').inputValue(), /private investigator/);
    assert.match(await form.getByLabel('Scenario').inputValue(), /detective's office/);
    await h.fillCharacterForm(form, {
      name: 'Captain Wren',
      description: 'A retired sky-ship captain who tells tall tales over tea.',
      gender: 'female',
      persona: 'Wren is warm, wry and a little boastful. She speaks in short, salty sentences.',
      scenario: 'A quiet harbour tavern on a rainy evening.',
      greeting: 'Ahoy! Pull up a chair, the kettle is on.',
      exampleDialogue: '{{user}}: Any stories?\n{{char}}: Plenty. Sit down.',
      tags: 'adventure, sky, #tea',
    });
    // The whole form in one picture: a tall window rather than a full-page capture (the header is sticky).
    await page.setViewportSize({ width: 1280, height: 1640 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(SHOTS, 'tavern-edit.png') });
    await page.setViewportSize({ width: 1280, height: 860 });
    characterId = await h.saveCharacter(page, form, 'Captain Wren');
    const detail = page.getByTestId('character-detail');
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
    await cards.filter({ hasText: 'Captain Wren' }).getByRole('link').click();
    await page.waitForURL(new RegExp(`/en/tavern/character/${characterId}$`));
    await page.getByTestId('character-detail').getByRole('heading', { name: 'Captain Wren' }).waitFor();
    // The page names the model that writes the replies (character/model_list), honestly.
    const model = page.getByTestId('character-model');
    await model.getByText('Replies are written by Scripted test model', { exact: false }).waitFor();
    await model.getByText('not a neural model').waitFor();
    // One's own character cannot be reported.
    assert.equal(await page.getByRole('button', { name: /^Report/ }).count(), 0);
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
    await h.online(page);
    await until('the greeting', async () => {
      const m = await h.chatMessages(page);
      return m.length === 1 && m[0].role === 'assistant' && m[0].text === 'Ahoy! Pull up a chair, the kettle is on.' && m;
    });
    await h.watchLastReply(page);
    const said = 'Tell me about the storm over the northern sea and how the crew kept the ship flying all night';
    await send(said);
    const expected = `You said: ${said}`;
    await until('the reply to finish', async () => {
      const m = await h.chatMessages(page);
      return m.length === 3 && m[2].state === 'done' && m;
    });
    const m = await h.chatMessages(page);
    assert.deepEqual(
      m.map((x) => [x.role, x.text]),
      [
        ['assistant', 'Ahoy! Pull up a chair, the kettle is on.'],
        ['user', said],
        ['assistant', expected],
      ],
    );
    // The text grew over several observations while streaming, each a prefix of the next.
    const log = (await h.replyLog(page)).filter((e) => e.text !== 'Ahoy! Pull up a chair, the kettle is on.');
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
    await h.watchLastReply(page);
    const said = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    await send(said);
    await until('a partial reply', async () => {
      const m = await h.chatMessages(page);
      return m.length === 5 && m[4].state === 'streaming' && m[4].text.split(' ').length >= 6;
    });
    // The README's chat picture comes from the real model (real-model.test.mjs);
    // this scripted-model one goes to test-results.
    await mkdir(path.join(WEB_DIR, 'test-results'), { recursive: true });
    await page.screenshot({ path: path.join(WEB_DIR, 'test-results', 'tavern-chat-scripted.png') });
    await page.getByRole('button', { name: 'Stop' }).click();
    const m = await until('the stopped reply', async () => {
      const all = await h.chatMessages(page);
      return all.length === 5 && all[4].state === 'cancelled' && all;
    });
    const full = `You said: ${said}`;
    assert.ok(m[4].text.length > 0 && m[4].text.length < full.length, `partial: ${m[4].text}`);
    assert.ok(full.startsWith(m[4].text));
    await page.getByText('Stopped', { exact: true }).waitFor();
    // Nothing more arrives after the stop.
    await page.waitForTimeout(400);
    assert.equal((await h.chatMessages(page))[4].text, m[4].text);
  });

  test('reloads and sees the same history', async () => {
    const before = await h.chatMessages(page);
    await page.reload();
    await h.online(page);
    const after = await until('the history', async () => {
      const m = await h.chatMessages(page);
      return m.length === before.length && m;
    });
    assert.deepEqual(after, before);
  });

  test('reloads mid-reply and gets the rest without duplicated text', async () => {
    const said = Array.from({ length: 50 }, (_, i) => `tide${i}`).join(' ');
    await send(said);
    await until('the reply under way', async () => {
      const m = await h.chatMessages(page);
      return m.length === 7 && m[6].state === 'streaming' && m[6].text.split(' ').length >= 5;
    });
    await page.reload();
    const m = await until('the whole reply after the reload', async () => {
      const all = await h.chatMessages(page);
      return all.length === 7 && all[6].state === 'done' && all;
    });
    assert.equal(m[6].text, `You said: ${said}`);
    assert.equal(m[5].text, said);
    assert.equal(page.url(), chatUrl);
  });

  test('regenerates the last reply', async () => {
    await h.watchLastReply(page);
    await page.getByTestId('chat-message').last().hover();
    await page.getByRole('button', { name: /Regenerate/ }).click();
    const m = await until('the regenerated reply', async () => {
      const all = await h.chatMessages(page);
      return all.length === 7 && all[6].state === 'done' && (await h.replyLog(page)).some((e) => e.state === 'streaming') && all;
    });
    assert.match(m[6].text, /^You said: tide0 tide1/);
    await page.getByTestId('chat-message').last().getByTestId('model-label').getByText('not a neural model').waitFor();
  });

  test('a socket dropped mid-reply reconnects and the reply ends whole, without repeats', async () => {
    const said = Array.from({ length: 120 }, (_, i) => `gale${i}`).join(' ');
    await send(said);
    await until('the reply under way', async () => {
      const m = await h.chatMessages(page);
      return m.length === 9 && m[8].state === 'streaming' && m[8].text.split(' ').length >= 5;
    });
    await page.evaluate(() => {
      const sockets = /** @type {any} */ (window).__sockets;
      sockets[sockets.length - 1].close();
    });
    await page.getByTestId('socket-state').filter({ hasText: /^reconnecting$/ }).waitFor();
    const m = await until('the whole reply after the reconnect', async () => {
      const all = await h.chatMessages(page);
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

  test('polishes the draft, with a one-step undo', async () => {
    const box = page.getByRole('textbox', { name: /^Message / });
    await box.fill('i has a storm story');
    await page.getByRole('button', { name: /Polish/ }).click();
    // The scripted test model answers "You said: …".
    await until('the polished draft', async () => (await box.inputValue()) === 'You said: i has a storm story');
    await page.getByRole('button', { name: /Undo polish/ }).click();
    assert.equal(await box.inputValue(), 'i has a storm story');
    await page.getByRole('button', { name: /Polish/ }).waitFor();
    await box.fill('');
    assert.equal((await h.chatMessages(page)).length, 9, 'polishing sends nothing');
  });

  test('renames the chat and changes its model settings', async () => {
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Chat settings' });
    await dialog.getByLabel('Chat title').fill('Storm stories');
    await dialog.getByLabel('Temperature', { exact: true }).fill('1.25');
    await dialog.getByLabel('Top p', { exact: true }).fill('0.75');
    await dialog.getByLabel('Longest reply (tokens)', { exact: true }).fill('2000');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('Longest reply (tokens) must be from 16 to 1024.').waitFor();
    await dialog.getByLabel('Longest reply (tokens)', { exact: true }).fill('300');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('navigation', { name: /^Chats with / }).getByText('Storm stories').waitFor();
    const sessionId = decodeURIComponent(chatUrl.split('/').pop());
    const listed = (await post('/api/v1/character/session/list', { character_id: characterId, limit: 30 })).items.find((x) => x.session_id === sessionId);
    assert.equal(listed.title, 'Storm stories');
    assert.deepEqual(listed.settings, { temperature: 1.25, top_p: 0.75, max_reply_tokens: 300 });
    // The dialog opens with what the server has.
    await page.reload();
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    assert.equal(await dialog.getByLabel('Chat title').inputValue(), 'Storm stories');
    assert.equal(await dialog.getByLabel('Temperature', { exact: true }).inputValue(), '1.25');
    assert.equal(await dialog.getByLabel('Longest reply (tokens)', { exact: true }).inputValue(), '300');
    await page.screenshot({ path: path.join(SHOTS, 'tavern-settings.png') });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  test('loads older messages on scrolling to the top and keeps the place', async () => {
    // Another account with a long chat (the newest 40 messages come first).
    const other = await h.signUp(backend.url, { prefix: 'tavern.long', password: 'tavern-e2e-pass-2', name: 'Oren' });
    const { session_id: sid } = await post('/api/v1/character/session/create', { character_id: characterId }, other.token);
    for (let i = 1; i <= 22; i++) {
      const { msg_id } = await post('/api/v1/character/session/chat/start', { session_id: sid, content: `line ${i}` }, other.token);
      const deadline = Date.now() + WAIT_MS;
      for (;;) {
        const m = await post('/api/v1/character/session/msg/latest_state_info', { session_id: sid }, other.token);
        if (m.msg_id === msg_id && m.state !== 'streaming') break;
        assert.ok(Date.now() < deadline, 'reply finished');
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      await ctx.addCookies([{ name: 'T', value: other.token, url: backend.url, sameSite: 'Lax' }]);
      const p = await ctx.newPage();
      p.on('pageerror', (e) => pageProblems.push(`pageerror: ${e.message}`));
      await p.goto(at(`/en/tavern/chat/${encodeURIComponent(characterId)}/${encodeURIComponent(sid)}`));
      const messages = p.getByTestId('chat-message');
      await messages.nth(39).waitFor();
      assert.equal(await messages.count(), 40);
      assert.equal(await messages.first().getByTestId('message-text').textContent(), 'line 3');
      // The view starts at the newest message; scrolling to the top reads the older page.
      const scroll = p.locator('.chat__scroll');
      await until('the view at the bottom', async () => scroll.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 4));
      const firstId = await messages.first().getAttribute('data-msg-id');
      await scroll.evaluate((el) => el.scrollTo({ top: 0 }));
      await until('the older page', async () => (await messages.count()) === 45);
      assert.equal(await messages.first().getByTestId('message-text').textContent(), 'Ahoy! Pull up a chair, the kettle is on.');
      // What was at the top is still on screen, near the top: the view did not jump.
      const place = await p.evaluate((id) => {
        const box = document.querySelector('.chat__scroll').getBoundingClientRect();
        const el = document.querySelector(`[data-msg-id="${id}"]`).getBoundingClientRect();
        return { offset: el.top - box.top, height: box.height };
      }, firstId);
      assert.ok(place.offset >= -4 && place.offset < place.height / 2, `the old first message stays in view: ${JSON.stringify(place)}`);
      await p.getByTestId('load-older').waitFor({ state: 'detached' });
    } finally {
      await ctx.close();
    }
  });

  test('the grid: recently chatted, chat now in one click, remove from recents', async () => {
    await page.goto(at('/en/tavern'));
    const recent = page.getByTestId('recent-row');
    await recent.getByRole('link', { name: 'Captain Wren' }).waitFor();
    await page.getByRole('button', { name: 'Chat now with Juniper' }).click();
    await page.waitForURL(/\/en\/tavern\/chat\/[^/]+\/[^/]+$/);
    await until('the greeting', async () => {
      const m = await h.chatMessages(page);
      return m.length === 1 && m[0].text === 'Hello, I am Juniper.';
    });
    const juniperId = decodeURIComponent(page.url().split('/').at(-2));
    await page.goto(at('/en/tavern'));
    await until('both in the recent row', async () => {
      const names = await recent.locator('.recent__name').allTextContents();
      return names.length === 2 && names[0] === 'Juniper' && names[1] === 'Captain Wren';
    });
    await page.getByTestId('character-card').first().waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'tavern-grid.png') });
    await recent.getByRole('button', { name: 'Remove Juniper from recently chatted' }).click();
    await until('Juniper off the row', async () => (await recent.locator('.recent__name').allTextContents()).join() === 'Captain Wren');
    await page.reload();
    await recent.getByRole('link', { name: 'Captain Wren' }).waitFor();
    assert.deepEqual(await recent.locator('.recent__name').allTextContents(), ['Captain Wren']);
    // Removing from the row keeps the chats: delete them all from the chat view, after a confirm.
    await page.goto(at(`/en/tavern/chat/${encodeURIComponent(juniperId)}`));
    await until('the chat', async () => (await h.chatMessages(page)).length === 1);
    await page.getByRole('button', { name: 'Delete all chats' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete all chats with Juniper?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    assert.equal((await post('/api/v1/character/session/list', { character_id: juniperId, limit: 30 })).items.length, 1);
    await page.getByRole('button', { name: 'Delete all chats' }).click();
    await confirm.getByRole('button', { name: 'Delete all', exact: true }).click();
    await page.waitForURL(new RegExp(`/en/tavern/character/${juniperId}$`));
    await page.getByText('Chats deleted: 1.').waitFor();
    assert.equal((await post('/api/v1/character/session/list', { character_id: juniperId, limit: 30 })).items.length, 0);
  });

  test('a visitor pressing "Chat now" is asked to log in', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const p = await ctx.newPage();
      p.on('pageerror', (e) => pageProblems.push(`pageerror: ${e.message}`));
      await p.goto(at('/en/tavern'));
      await p.getByRole('button', { name: 'Chat now with Captain Wren' }).click();
      await p.getByRole('dialog').waitFor();
      assert.match(p.url(), /\/en\/tavern$/);
      assert.equal(await p.getByTestId('recent-row').count(), 0);
    } finally {
      await ctx.close();
    }
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

  test('sets the chat persona from the tavern header, and from the chat settings', async () => {
    await page.goto(at('/en/tavern'));
    await page.getByRole('button', { name: 'Your persona' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your chat persona' });
    const name = dialog.getByLabel('Display name');
    await until('the persona read', async () => name.isEnabled());
    assert.equal(await name.inputValue(), '');
    const becomes = dialog.getByTestId('persona-becomes');
    assert.equal(await becomes.textContent(), 'In characters’ texts, {{user}} becomes “Mira”.');
    await name.fill('Skipper Mira');
    assert.equal(await becomes.textContent(), 'In characters’ texts, {{user}} becomes “Skipper Mira”.');
    await dialog.getByLabel('About you').fill('A young deckhand who wants to hear every story.');
    // The rules the server applies are checked first.
    await name.fill('n'.repeat(65));
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('The display name may have at most 64 characters.').waitFor();
    await name.fill('Skipper Mira');
    await page.screenshot({ path: path.join(WEB_DIR, 'test-results', 'tavern-persona.png') });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('Your chat persona was saved.').waitFor();
    assert.deepEqual(await post('/api/v1/account/character/setting/get', {}), {
      display_name: 'Skipper Mira',
      persona: 'A young deckhand who wants to hear every story.',
      user_name: 'Skipper Mira',
    });
    // The chat view has no tavern header: its settings dialog leads to the same persona.
    await page.goto(chatUrl);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    await page.getByRole('dialog', { name: 'Chat settings' }).getByRole('button', { name: 'Your persona' }).click();
    await page.getByRole('dialog', { name: 'Chat settings' }).waitFor({ state: 'detached' });
    await until('the stored persona', async () => (await name.inputValue()) === 'Skipper Mira');
    assert.equal(await dialog.getByLabel('About you').inputValue(), 'A young deckhand who wants to hear every story.');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  test('previews the unsaved greeting and example dialogue as chat bubbles', async () => {
    await page.goto(at(`/en/tavern/character/${encodeURIComponent(characterId)}/edit`));
    const form = page.getByTestId('character-form');
    await until('the form filled', async () => (await form.getByLabel('Name', { exact: true }).inputValue()) === 'Captain Wren');
    await form.getByLabel('Greeting').fill('Ahoy, {{user}}! {{char}} has the kettle on.');
    await form.getByLabel('Scenario').fill('A quiet harbour tavern on a rainy evening.');
    await form.getByRole('button', { name: 'Preview' }).click();
    const dialog = page.getByRole('dialog', { name: 'Preview of Captain Wren' });
    const lines = dialog.getByTestId('preview-line');
    await lines.first().waitFor();
    const got = await lines.evaluateAll((els) => els.map((el) => [el.getAttribute('data-kind'), el.getAttribute('data-role'), el.querySelector('.bubble__text')?.textContent]));
    assert.deepEqual(got, [
      ['greeting', 'assistant', 'Ahoy, Skipper Mira! Captain Wren has the kettle on.'],
      ['example', 'user', 'Any stories?'],
      ['example', 'assistant', 'Plenty. Sit down.'],
    ]);
    assert.equal(await dialog.getByTestId('preview-scene').textContent(), 'A quiet harbour tavern on a rainy evening.');
    await page.screenshot({ path: path.join(WEB_DIR, 'test-results', 'tavern-preview.png') });
    await dialog.getByRole('button', { name: 'Close' }).first().click();
    await dialog.waitFor({ state: 'detached' });
    // Nothing was saved.
    assert.equal((await post('/api/v1/character/detail', { id: characterId })).greeting, 'Ahoy! Pull up a chair, the kettle is on.');
    // A draft without a name cannot be previewed.
    await form.getByLabel('Name', { exact: true }).fill('');
    await form.getByRole('button', { name: 'Preview' }).click();
    await form.getByText('Fill in the name to preview the character.').waitFor();
  });

  test('suggests picture prompts for a saved character and hands one to the generator', async () => {
    await page.goto(at('/en/tavern/new'));
    const fresh = page.getByTestId('picture-prompts');
    await fresh.getByText('Save the character to get picture ideas.').waitFor();
    assert.equal(await fresh.getByRole('button').count(), 0);
    await page.goto(at(`/en/tavern/character/${encodeURIComponent(characterId)}/edit`));
    const box = page.getByTestId('picture-prompts');
    await box.getByRole('button', { name: 'Suggest picture prompts' }).click();
    const chips = box.getByTestId('picture-prompt');
    await chips.first().waitFor();
    const n = await chips.count();
    assert.ok(n >= 1 && n <= 3, `one to three prompts: ${n}`);
    const prompt = (await chips.first().locator('.picture-prompts__text').textContent()) ?? '';
    assert.ok(prompt.trim().length > 0);
    await page.screenshot({ path: path.join(WEB_DIR, 'test-results', 'tavern-prompts.png') });
    await chips.first().getByRole('button', { name: 'Use in generator: prompt 1' }).click();
    await page.waitForURL(/\/en\/create$/);
    const field = page.getByRole('tabpanel').getByLabel('Prompt', { exact: true });
    await until('the prompt in the generator', async () => (await field.inputValue()) === prompt);
  });

  test("reports someone else's character, with the server's errors shown", async () => {
    const tess = await h.signUp(backend.url, { prefix: 'tavern.tess', password: 'tavern-e2e-pass-3', name: 'Tess' });
    const { id: lanternId } = await post(
      '/api/v1/tavern-pro/publish',
      { name: 'Lantern Lady', description: 'Sells lanterns.', persona: 'Kind.', greeting: 'Need a light?', tags: [], gender: 'female', character_type: 1 },
      tess.token,
    );
    await page.goto(at(`/en/tavern/character/${encodeURIComponent(lanternId)}`));
    await page.getByRole('button', { name: 'Report Lantern Lady' }).click();
    const dialog = page.getByRole('dialog', { name: 'Report Lantern Lady' });
    const reasons = dialog.getByRole('group', { name: 'Reason' }).getByRole('radio');
    assert.equal(await reasons.count(), 6);
    await dialog.getByRole('button', { name: 'Send report' }).click();
    await dialog.getByText('Choose a reason.').waitFor();
    await dialog.getByRole('radio', { name: 'Something else' }).check();
    await dialog.getByText('Required for “Something else”: what is wrong?').waitFor();
    await dialog.getByRole('button', { name: 'Send report' }).click();
    await dialog.getByText('Describe the problem in the details.').waitFor();
    await dialog.getByLabel('Details').fill('Links to a shop in every reply.');
    await page.screenshot({ path: path.join(WEB_DIR, 'test-results', 'tavern-report.png') });
    await dialog.getByRole('button', { name: 'Send report' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('Thank you. Your report about Lantern Lady was sent.').waitFor();
    // One open report per reporter and object (issue 20): a second one answers its key.
    await page.getByRole('button', { name: 'Report Lantern Lady' }).click();
    await dialog.getByRole('radio', { name: 'Spam or advertising' }).check();
    await dialog.getByRole('button', { name: 'Send report' }).click();
    await dialog.getByRole('alert').getByText('You already reported this. The moderators will look at your report.').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // Its owner deletes it while the dialog is open: the server's key is shown.
    await page.getByRole('button', { name: 'Report Lantern Lady' }).click();
    await dialog.getByRole('radio', { name: 'Hate or harassment' }).check();
    await post('/api/v1/tavern-pro/delete', { id: lanternId }, tess.token);
    await dialog.getByRole('button', { name: 'Send report' }).click();
    await dialog.getByRole('alert').getByText('Not found.').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  test('fits a phone screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(chatUrl);
    await h.online(page);
    await until('the history', async () => (await h.chatMessages(page)).length === 9);
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
    // The grid with its recent row and "Chat now" buttons fits too.
    await page.goto(at('/en/tavern'));
    await page.getByTestId('recent-row').waitFor();
    await page.getByRole('button', { name: /^Chat now with / }).first().waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'tavern-phone-grid.png') });
    const wideGrid = await page.evaluate(() =>
      [...document.querySelectorAll('main *')]
        .filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
        .slice(0, 5)
        .map((el) => `${el.tagName}.${el.className}`),
    );
    assert.deepEqual(wideGrid, [], 'nothing in the grid is wider than the screen');
    // The persona dialog fits too.
    await page.getByRole('button', { name: 'Your persona' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your chat persona' });
    await until('the persona read', async () => dialog.getByLabel('Display name').isEnabled());
    const box = await dialog.boundingBox();
    assert.ok(box !== null && box.x >= 0 && box.x + box.width <= 390, `the dialog fits: ${JSON.stringify(box)}`);
    await page.screenshot({ path: path.join(WEB_DIR, 'test-results', 'tavern-phone-persona.png') });
    await page.keyboard.press('Escape');
  });
});
