/* global window -- page.evaluate callbacks run in the browser */
// Browser test of the home page's composition (issue 22 part 3) against the
// real backend: the operator (EASEL_ADMINS) opens the console's "Home page"
// tab, adds a banner and a once-a-day popup with "don't show again" to the
// draft, previews the draft as a visitor, and publishes; a visitor then
// sees the banner and the popup once, dismisses it with "don't show again",
// reloads, and no popup comes back (the banner stays). The operator then
// sees what the visitor did with the popup (its statistics), opens the
// banner from the draft's list, edits its title and publishes: the visitor's
// page shows the new title.
// Screenshots: docs/screenshots/home-composer.png, home-popup.png.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { apiPost } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(WEB_DIR, '..', 'docs', 'screenshots');
const WAIT_MS = 30_000;
const OPERATOR = 'home-operator@example.com';
const BANNER = 'Winter challenge is open';
const POPUP = 'Paint the first snow';
const EDITED = 'Winter challenge: last week';

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
const pageProblems = [];
/** The operator's token (signed up in the first test). */
let operatorToken = '';

describe('home page: an operator composes, previews and publishes; a visitor sees it once', { timeout: 300_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend({ env: { EASEL_ADMINS: OPERATOR } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
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

  test('the operator composes a banner and a popup, previews and publishes', async () => {
    const data = await apiPost(backend.url, '/api/v1/account/sign-up', { email: OPERATOR, password: 'home-test-op-1', name: 'Olga Operator' });
    operatorToken = data.token;
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    await context.addCookies([{ name: 'T', value: data.token, url: backend.url, sameSite: 'Lax' }]);
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('pageerror', (e) => pageProblems.push(`operator pageerror: ${e.message}`));
    await page.goto(new URL('/en/operate/home', backend.url).href);
    const composer = page.getByTestId('home-composer');
    await composer.waitFor();

    // A link to another host is refused with the server's message.
    const banner = composer.getByTestId('compose-banner');
    await banner.getByTestId('banner-title').fill(BANNER);
    await banner.getByTestId('banner-image').fill('/favicon.svg');
    await banner.getByTestId('banner-link').fill('https://evil.example.net/prize');
    await banner.getByTestId('banner-save').click();
    await composer.getByTestId('home-error').filter({ hasText: 'not allowed on this instance' }).waitFor();
    await banner.getByTestId('banner-link').fill('/en/');
    await banner.getByTestId('banner-save').click();
    await composer.getByTestId('draft-items').getByText(`Banner · ${BANNER}`).waitFor();

    const popup = composer.getByTestId('compose-popup');
    await popup.getByTestId('popup-title').fill(POPUP);
    await popup.getByTestId('popup-body').fill('Post a winter picture this week.');
    await popup.getByTestId('popup-image').fill('/favicon.svg');
    await popup.getByTestId('popup-cap').selectOption('daily');
    await popup.getByTestId('popup-aud-visitor').check();
    await popup.getByTestId('popup-save').click();
    await composer.getByTestId('draft-items').getByText(`Popup · ${POPUP}`).waitFor();

    // The preview shows the draft for the chosen audience.
    const preview = composer.getByTestId('home-preview');
    await preview.getByTestId('preview-audience').selectOption('visitor');
    await preview.getByTestId('home-banner').getByText(BANNER).waitFor();
    await preview.getByTestId('preview-popups').getByText(POPUP).waitFor();
    await preview.getByTestId('preview-audience').selectOption('member');
    await preview.getByTestId('preview-popups').getByText(POPUP).waitFor({ state: 'detached' });

    // Nothing is live before publishing.
    const before = await apiPost(backend.url, '/api/v1/banner/home', { lang: 'en' });
    assert.deepEqual(before.banners, []);
    await composer.getByTestId('home-publish').click();
    await composer.getByTestId('draft-status').filter({ hasText: 'is live' }).waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'home-composer.png'), fullPage: true });
    await context.close();
  });

  test('a visitor sees the banner and the popup once, and "don’t show again" holds after a reload', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('pageerror', (e) => pageProblems.push(`visitor pageerror: ${e.message}`));
    const popupAnswer = () => page.waitForResponse((r) => r.url().endsWith('/api/v1/face-photo/get'));

    // The first page load sets the deviceId cookie; the app asks on the next.
    let answered = popupAnswer();
    await page.goto(new URL('/en/', backend.url).href);
    await answered;
    const banner = page.getByTestId('home-slot-home-top').getByTestId('home-banner');
    await banner.getByText(BANNER).waitFor();
    let dialog = page.getByTestId('face-popup');
    if (!(await dialog.isVisible())) {
      answered = popupAnswer();
      await page.reload();
      await answered;
    }
    dialog = page.getByTestId('face-popup');
    await dialog.getByRole('heading', { name: POPUP }).waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'home-popup.png') });
    await dialog.getByTestId('face-popup-never').check();
    await dialog.getByTestId('face-popup-close').click();
    await dialog.waitFor({ state: 'detached' });

    // Reload: the server says no more (don't-pop recorded), the banner stays.
    await page.evaluate(() => window.localStorage.clear());
    answered = popupAnswer();
    await page.reload();
    const answer = await (await answered).json();
    assert.equal(answer.data.show, false, JSON.stringify(answer));
    await banner.getByText(BANNER).waitFor();
    assert.equal(await page.getByTestId('face-popup').count(), 0);
    await context.close();
  });

  test('the operator sees the popup statistics, edits the banner and publishes it', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    await context.addCookies([{ name: 'T', value: operatorToken, url: backend.url, sameSite: 'Lax' }]);
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('pageerror', (e) => pageProblems.push(`operator pageerror: ${e.message}`));
    await page.goto(new URL('/en/operate/home', backend.url).href);
    const composer = page.getByTestId('home-composer');
    await composer.waitFor();

    // The visitor was shown the popup once and chose "don't show again".
    const stats = composer.getByTestId('popup-stats');
    await stats.filter({ hasText: 'shown 1 (1 viewers: 0 accounts, 1 visitors)' }).waitFor();
    await stats.filter({ hasText: '“don’t show again” 1' }).waitFor();

    // Open the banner, change its title, save it under its id.
    const item = composer.getByTestId('draft-item').filter({ hasText: `Banner · ${BANNER}` });
    await item.getByTestId('draft-item-edit').click();
    const form = composer.getByTestId('compose-banner');
    assert.equal(await form.getByTestId('banner-title').inputValue(), BANNER);
    assert.equal(await form.getByTestId('banner-link').inputValue(), '/en/');
    await form.getByTestId('banner-title').fill(EDITED);
    await form.getByTestId('banner-save').click();
    await composer.getByTestId('draft-items').getByText(`Banner · ${EDITED}`).waitFor();
    assert.equal(await composer.getByTestId('draft-item').filter({ hasText: 'Banner ·' }).count(), 1);
    assert.equal(await form.getByTestId('banner-title').inputValue(), '');
    await composer.getByTestId('home-publish').click();
    await composer.getByTestId('draft-status').filter({ hasText: 'is live' }).waitFor();
    await context.close();

    const visitor = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const v = await visitor.newPage();
    v.setDefaultTimeout(WAIT_MS);
    v.on('pageerror', (e) => pageProblems.push(`visitor pageerror: ${e.message}`));
    await v.goto(new URL('/en/', backend.url).href);
    await v.getByTestId('home-slot-home-top').getByTestId('home-banner').getByText(EDITED).waitFor();
    await visitor.close();
  });
});
