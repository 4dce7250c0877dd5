// Browser test of the text filter's operator page (issue 20 item 5) against
// the real backend: the operator (EASEL_ADMINS) opens the console's "Text
// filter" tab, tries a text (clean), adds "grape" as a masked word for
// comments and "plum" as a refused one, and tries an evasion of each; then a
// user comments on a work with evasion variants: "g-r-a-p-e" shows masked,
// "ｐｌｕｍ" is refused with the content-rules message and never appears.
// Screenshot: docs/screenshots/moderation-filter.png.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { apiPost, makePicture, online, signUp } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(WEB_DIR, '..', 'docs', 'screenshots');
const WAIT_MS = 30_000;
const OPERATOR = 'filter-operator@example.com';
const TITLE = 'Orchard at noon';

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
const users = /** @type {Record<string, {token: string, page: import('playwright-core').Page}>} */ ({});
let workId = '';
const pageProblems = [];

async function newUser(key, name, email) {
  const password = `filter-test-${key}-1`;
  const data = email
    ? await apiPost(backend.url, '/api/v1/account/sign-up', { email, password, name })
    : await signUp(backend.url, { prefix: `filter-${key}`, password, name });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addCookies([{ name: 'T', value: data.token, url: backend.url, sameSite: 'Lax' }]);
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  page.on('pageerror', (e) => pageProblems.push(`${key} pageerror: ${e.message}`));
  users[key] = { token: data.token, page };
  return users[key];
}

describe('text filter: the operator lists a word, a user’s evasion of it is masked or refused', { timeout: 300_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend({ env: { EASEL_ADMINS: OPERATOR } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    await newUser('op', 'Olga Operator', OPERATOR);
    const owner = await newUser('owner', 'Ada Painter');
    await newUser('user', 'Bea Viewer');

    const post = (p, body) => apiPost(backend.url, p, body, owner.token);
    const taskId = await makePicture(post, 'an orchard at noon, watercolor', 3);
    ({ id: workId } = await apiPost(
      backend.url,
      '/api/v1/post/portfolio/add_v2',
      { task_ids: [taskId], title: TITLE, description: 'Trees.', tags: ['orchard'], visibility: 'public' },
      owner.token,
    ));
    assert.ok(workId);
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await backend?.stop();
    }
  });

  test('the operator adds words on the console’s filter page and tries them', async () => {
    const { page } = users.op;
    await page.goto(new URL('/en/', backend.url).href);
    await online(page);
    await page.getByTestId('header-moderation').click();
    const console_ = page.getByTestId('moderation-page');
    await console_.getByRole('link', { name: 'Text filter' }).click();
    await page.waitForURL(/\/en\/moderation\/filter$/);
    const view = page.getByTestId('mod-filter');
    // The shipped list is there, by language.
    await view.locator('[data-testid="filter-entry"][data-id="default.en.shit"]').waitFor();
    await view.getByLabel('Language').first().selectOption('zh');
    await view.locator('[data-testid="filter-entry"][data-id="default.zh.shabi"]').waitFor();
    assert.equal(await view.locator('[data-testid="filter-entry"][data-id="default.en.shit"]').count(), 0);
    await view.getByLabel('Language').first().selectOption('');

    // Before: a grape is clean.
    const tryBox = view.getByTestId('filter-try');
    await tryBox.getByLabel('Text to check').fill('my g-r-a-p-e pie');
    await tryBox.getByLabel('Scene').selectOption('comment');
    await tryBox.getByRole('button', { name: 'Check' }).click();
    await tryBox.getByText('Nothing matched: the text is accepted as written.').waitFor();

    // "grape", masked in comments.
    await view.getByRole('button', { name: 'Add a word or pattern' }).click();
    let form = view.getByTestId('filter-form');
    await form.getByRole('button', { name: 'Save entry' }).click();
    await form.getByRole('alert').filter({ hasText: 'Write a word, phrase or pattern' }).waitFor();
    await form.getByLabel('Word, phrase or pattern').fill('grape');
    await form.getByLabel('Category').fill('fruit');
    await form.getByLabel('Comments').check();
    await form.getByRole('button', { name: 'Save entry' }).click();
    await form.waitFor({ state: 'detached' });
    await view.locator('[data-testid="filter-entry"][data-id="op.en.grape"][data-action="mask"]').waitFor();

    // "plum", refused everywhere.
    await view.getByRole('button', { name: 'Add a word or pattern' }).click();
    form = view.getByTestId('filter-form');
    await form.getByLabel('Word, phrase or pattern').fill('plum');
    await form.getByLabel('Action').selectOption('refuse');
    await form.getByRole('button', { name: 'Save entry' }).click();
    await form.waitFor({ state: 'detached' });
    await view.locator('[data-testid="filter-entry"][data-id="op.en.plum"][data-action="refuse"]').waitFor();

    // The same text now matches and shows what is stored.
    await tryBox.getByRole('button', { name: 'Check' }).click();
    await tryBox.getByText('Accepted with the matches masked.').waitFor();
    await tryBox.getByTestId('filter-masked').filter({ hasText: 'my ********* pie' }).waitFor();
    await tryBox.getByTestId('filter-hit').filter({ hasText: '“g-r-a-p-e”: fruit (Mask)' }).waitFor();
    await tryBox.getByLabel('Text to check').fill('ｐｌｕｍ jam');
    await tryBox.getByRole('button', { name: 'Check' }).click();
    await tryBox.locator('[data-testid="filter-result"][data-refused="true"]').waitFor();
    await tryBox.getByText('Refused: a refusing entry matched.').waitFor();
    await tryBox.getByLabel('Text to check').fill('my g-r-a-p-e pie');
    await tryBox.getByRole('button', { name: 'Check' }).click();
    await tryBox.getByTestId('filter-masked').waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'moderation-filter.png') });
  });

  test('a user’s comment with an evasion is masked, another refused', async () => {
    const { page } = users.user;
    await page.goto(new URL(`/en/artWorkDetail/${encodeURIComponent(workId)}`, backend.url).href);
    await online(page);
    const work = page.getByTestId('work-page');
    await work.getByRole('heading', { name: TITLE }).waitFor();
    const form = work.getByTestId('comment-form');

    await form.getByRole('textbox').fill('I love g-r-a-p-e pie');
    await form.getByRole('button', { name: 'Comment' }).click();
    await work.getByTestId('comment-text').filter({ hasText: 'I love ********* pie' }).waitFor();
    assert.equal(await work.getByTestId('comment-text').filter({ hasText: 'g-r-a-p-e' }).count(), 0);

    await form.getByRole('textbox').fill('ｐｌｕｍ jam for sale');
    await form.getByRole('button', { name: 'Comment' }).click();
    await work.getByRole('alert').filter({ hasText: 'This text breaks the content rules.' }).waitFor();
    await page.reload();
    await work.getByTestId('comment-text').filter({ hasText: 'I love ********* pie' }).waitFor();
    assert.equal(await work.getByTestId('comment-text').filter({ hasText: 'jam for sale' }).count(), 0, 'the refused comment was not stored');
    assert.deepEqual(pageProblems, []);
  });
});
