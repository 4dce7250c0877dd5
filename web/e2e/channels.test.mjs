// Browser test of IM channels against the real backend binary and real
// Chromium: two users (signed up through the API, token in cookie T) in two
// browser contexts. A creates a channel, B opens the invite link and confirms
// joining, both send messages, and each sees all of them in the same order,
// live over the socket. A then generates in the channel: B sees the task's
// progress card and then the result in history; B leaves and A's member
// count drops live. Screenshot: docs/screenshots/channels.png.
/* global document, window, MutationObserver -- used inside page.evaluate callbacks */
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { online, signUp } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(WEB_DIR, '..', 'docs', 'screenshots');
const WAIT_MS = 15_000;

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
const pageProblems = [];

/** Signs a user up through the API and opens a browser context logged in with cookie T. */
async function userContext(name) {
  const login = await signUp(backend.url, { prefix: name.toLowerCase(), password: 'channels-e2e-pass-1', name });
  const context = await browser.newContext({ viewport: { width: 1200, height: 860 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: backend.url });
  await context.addCookies([{ name: 'T', value: login.token, url: backend.url, sameSite: 'Lax' }]);
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  page.on('pageerror', (e) => pageProblems.push(`${name} pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content.Security.Policy/i.test(m.text())) pageProblems.push(`${name} csp: ${m.text()}`);
  });
  return { name, token: login.token, context, page };
}

/** The texts of the messages on screen, in order. */
async function messageTexts(page) {
  return page.getByTestId('message').locator('.message__text').allTextContents();
}

async function waitForMessages(page, expected) {
  const deadline = Date.now() + WAIT_MS;
  let seen = [];
  while (Date.now() < deadline) {
    seen = await messageTexts(page);
    if (seen.length >= expected.length) break;
    await page.waitForTimeout(100);
  }
  assert.deepEqual(seen, expected);
}

async function send(page, text) {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
  // Sent once the box is cleared.
  const deadline = Date.now() + WAIT_MS;
  while ((await box.inputValue()) !== '' && Date.now() < deadline) await page.waitForTimeout(50);
  assert.equal(await box.inputValue(), '', `"${text}" was sent`);
}

describe('IM channels in two browsers', { timeout: 180_000 }, () => {
  /** @type {Awaited<ReturnType<typeof userContext>>} */
  let ada;
  /** @type {Awaited<ReturnType<typeof userContext>>} */
  let bob;
  let inviteUrl = '';

  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    ada = await userContext('Ada');
    bob = await userContext('Bob');
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await backend?.stop();
    }
  });

  test('A creates a channel from the channels screen and gets an invite link', async () => {
    const { page } = ada;
    await page.goto(new URL('/en/', backend.url).href);
    await online(page);
    await page.getByRole('banner').getByRole('link', { name: 'Channels' }).click();
    await page.waitForURL(/\/en\/channels$/);
    await page.getByText('You have not joined a channel yet', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'New channel' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a channel' });
    await dialog.getByLabel('Channel name').fill('Sketch club');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/en\/channels\/[^/]+$/);
    await page.getByRole('heading', { name: '# Sketch club' }).waitFor();
    await page.getByText('No messages yet', { exact: false }).waitFor();
    const link = page.getByTestId('invite-link');
    await link.waitFor();
    inviteUrl = await link.inputValue();
    assert.match(inviteUrl, /\/en\/channels\?invite=[A-Za-z0-9_-]+$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), inviteUrl);
    await page.getByTestId('member-list').getByText('Ada').waitFor();
  });

  test('B opens the invite link, confirms, and lands in the channel', async () => {
    const { page } = bob;
    await page.goto(inviteUrl);
    const confirm = page.getByRole('dialog', { name: 'Join a channel?' });
    await confirm.waitFor();
    // The code left the address and waits in localStorage until confirmed.
    assert.doesNotMatch(page.url(), /invite=/);
    assert.ok(await page.evaluate(() => localStorage.getItem('easel.channelInvite')));
    await confirm.getByRole('button', { name: 'Join' }).click();
    await page.waitForURL(/\/en\/channels\/[^/]+$/);
    await page.getByRole('heading', { name: '# Sketch club' }).waitFor();
    assert.equal(await page.evaluate(() => localStorage.getItem('easel.channelInvite')), null);
    await online(page);
    await page.getByTestId('member-list').getByText('Ada').waitFor();
    await page.getByTestId('member-list').getByText('Bob').waitFor();
  });

  test('both send; each sees every message once, in the same order', async () => {
    await online(ada.page);
    // Ada's member list learns of Bob on its next read; reopening is not needed for messages.
    const expected = [];
    const turns = [
      [ada, 'Hello Bob, welcome to the club!'],
      [bob, 'Thanks Ada. Shall we draw lighthouses?'],
      [ada, 'Yes, at dusk.\nWatercolor.'],
      [bob, 'Starting now.'],
    ];
    for (const [who, text] of turns) {
      await send(who.page, text);
      expected.push(text);
      await waitForMessages(ada.page, expected);
      await waitForMessages(bob.page, expected);
    }
    // Two quick messages from both sides at once: the same order for everyone.
    await Promise.all([send(ada.page, 'race A'), send(bob.page, 'race B')]);
    await ada.page.getByText('race B').waitFor();
    await bob.page.getByText('race A').waitFor();
    const a = await messageTexts(ada.page);
    const b = await messageTexts(bob.page);
    assert.deepEqual(a, b);
    assert.equal(a.length, expected.length + 2);
    const seqA = await ada.page.getByTestId('message').evaluateAll((els) => els.map((e) => Number(e.dataset.seq)));
    assert.deepEqual([...seqA].sort((x, y) => x - y), seqA, 'messages are in sequence order');
    assert.equal(new Set(seqA).size, seqA.length, 'no duplicates');

    // Bob's own messages are on the right, Ada's on the left.
    assert.equal(await bob.page.locator('.message--mine').count(), 3);

    // Shift+Enter makes a new line instead of sending.
    const box = ada.page.getByRole('textbox', { name: 'Message' });
    await box.fill('line one');
    await box.press('Shift+Enter');
    await box.type('line two');
    assert.equal(await box.inputValue(), 'line one\nline two');
    await ada.page.getByText('Enter sends, Shift+Enter starts a new line.').waitFor();
    await ada.page.getByText('17 / 4000').waitFor();
  });

  test('an unread badge counts messages in a channel not on screen; the person popup shows roles', async () => {
    // Bob leaves the channel view for the list; Ada writes; Bob's badge shows 1.
    await bob.page.getByRole('link', { name: /Channels/ }).first().click();
    await bob.page.waitForURL(/\/en\/channels$/);
    await send(ada.page, 'Are you still there?');
    await bob.page.getByTestId('unread-badge').filter({ hasText: /^1$/ }).waitFor();
    await bob.page.getByRole('link', { name: /Sketch club/ }).click();
    await bob.page.getByText('Are you still there?').waitFor();
    await bob.page.getByTestId('unread-badge').waitFor({ state: 'detached' });

    // Ada (owner) opens Bob's popup: role Member, and a kick button.
    await ada.page.reload();
    await online(ada.page);
    await ada.page.getByTestId('member-list').getByRole('button', { name: /Bob/ }).click();
    const popup = ada.page.getByRole('dialog', { name: 'Bob' });
    await popup.getByText('Member').waitFor();
    await popup.getByRole('button', { name: 'Remove from channel' }).waitFor();
    await ada.page.screenshot({ path: path.join(SHOTS, 'channels-person.png') });
    await popup.getByRole('button', { name: 'Close' }).click();
    // Bob (member) sees no kick button in Ada's popup.
    await bob.page.getByTestId('member-list').getByRole('button', { name: /Ada/ }).click();
    const adaPopup = bob.page.getByRole('dialog', { name: 'Ada' });
    await adaPopup.getByText('Owner').waitFor();
    assert.equal(await adaPopup.getByRole('button', { name: 'Remove from channel' }).count(), 0);
    await adaPopup.getByRole('button', { name: 'Close' }).click();

    // At a phone's width the channel fills the screen, with a way back to the list.
    await bob.page.setViewportSize({ width: 390, height: 800 });
    await bob.page.getByRole('link', { name: /All channels/ }).waitFor();
    await bob.page.getByRole('textbox', { name: 'Message' }).waitFor();
    await bob.page.screenshot({ path: path.join(SHOTS, 'channels-phone.png') });
    assert.deepEqual(pageProblems, []);
  });

  test('A generates in the channel; B sees its progress card, then the result in history', async () => {
    await bob.page.setViewportSize({ width: 1200, height: 860 });
    await online(bob.page);
    // The reference engine is quick: record every progress card B's screen shows.
    await bob.page.evaluate(() => {
      const seen = new Set();
      window.__channelTaskCards = seen;
      const look = () => {
        for (const el of document.querySelectorAll('[data-testid="channel-task"]')) seen.add(el.getAttribute('data-task'));
      };
      new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    const prompt = 'a lighthouse at dusk, watercolor';
    const box = ada.page.getByRole('textbox', { name: 'Prompt to generate in this channel' });
    await box.fill(prompt);
    await ada.page.getByRole('button', { name: 'Generate here' }).click();
    // Started: the box empties; the result image lands in both histories.
    await ada.page.waitForFunction(() => document.querySelector('.generate-here__input')?.value === '');
    const alt = `Shared result: ${prompt}`;
    for (const page of [bob.page, ada.page]) {
      const img = page.getByTestId('message-list').getByRole('img', { name: alt });
      await img.waitFor();
      await page.waitForFunction((a) => {
        const el = [...document.querySelectorAll('img')].find((i) => i.alt === a);
        return el !== undefined && el.complete && el.naturalWidth > 0;
      }, alt);
    }
    const cards = await bob.page.evaluate(() => [...window.__channelTaskCards]);
    assert.equal(cards.length, 1, `B saw one progress card: ${JSON.stringify(cards)}`);
    // Once the result is posted, the card is gone.
    await bob.page.getByTestId('channel-task').waitFor({ state: 'detached' });
    await bob.page.getByTestId('message-list').getByRole('img', { name: alt }).scrollIntoViewIfNeeded();
    await bob.page.screenshot({ path: path.join(SHOTS, 'channels.png') });
  });

  test('B leaves the channel; A sees the member count drop live', async () => {
    await ada.page.getByRole('heading', { name: 'Members (2)' }).waitFor();
    await bob.page.getByRole('button', { name: 'Leave channel' }).click();
    const confirm = bob.page.getByRole('dialog', { name: 'Leave channel' });
    await confirm.getByText('Leave this channel?', { exact: false }).waitFor();
    await confirm.getByRole('button', { name: 'Leave channel' }).click();
    await bob.page.waitForURL(/\/en\/channels$/);
    await bob.page.getByText('You have not joined a channel yet', { exact: false }).waitFor();
    await ada.page.getByRole('heading', { name: 'Members (1)' }).waitFor();
    assert.equal(await ada.page.getByTestId('member-list').getByText('Bob').count(), 0);
    // The owner is offered Disband instead of Leave.
    await ada.page.getByRole('button', { name: 'Disband channel' }).waitFor();
    assert.equal(await ada.page.getByRole('button', { name: 'Leave channel' }).count(), 0);
    assert.deepEqual(pageProblems, []);
  });
});
