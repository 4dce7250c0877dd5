// Browser test of questionnaires (issue 22 part 4) against the real backend:
// the operator (EASEL_ADMINS) builds a survey on the console's Surveys tab, a
// user gets it in a dialog on the next page load, is told a required
// question is missing, answers it, and never sees it again; the operator sees
// the answer in the results' bars and downloads the CSV with the answer in it.
// Screenshots: docs/screenshots/surveys-dialog.png, surveys-results.png.
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { apiPost, online, signUp } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(WEB_DIR, '..', 'docs', 'screenshots');
const WAIT_MS = 30_000;
const OPERATOR = 'survey-operator@example.com';
const TITLE = 'How is Easel, one month in?';

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
const users = /** @type {Record<string, {token: string, page: import('playwright-core').Page}>} */ ({});
const pageProblems = [];

async function newUser(key, name, email) {
  const password = `survey-test-${key}-1`;
  const data = email
    ? await apiPost(backend.url, '/api/v1/account/sign-up', { email, password, name })
    : await signUp(backend.url, { prefix: `survey-${key}`, password, name });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  await context.addCookies([{ name: 'T', value: data.token, url: backend.url, sameSite: 'Lax' }]);
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  page.on('pageerror', (e) => pageProblems.push(`${key} pageerror: ${e.message}`));
  users[key] = { token: data.token, page };
  return users[key];
}

describe('surveys: the operator builds one, a user answers it, the operator downloads the CSV', { timeout: 300_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend({ env: { EASEL_ADMINS: OPERATOR } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    await newUser('op', 'Olga Operator', OPERATOR);
    await newUser('user', 'Uma User');
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await backend?.stop();
    }
  });

  test('the operator builds a survey on the console', async () => {
    const { page } = users.op;
    await page.goto(new URL('/en/operate/surveys', backend.url).href);
    await online(page);
    const builder = page.getByTestId('survey-builder');
    await builder.getByRole('button', { name: 'Create survey' }).click();
    await builder.getByRole('alert').filter({ hasText: 'Give the survey a title' }).waitFor();
    await builder.getByLabel('Title').fill(TITLE);

    const q1 = builder.getByTestId('build-q-1');
    await q1.getByLabel('Question', { exact: true }).fill('Which tool do you use most?');
    await q1.getByLabel('Options, one per line').fill('Images\nVideo, with sound\nChat');

    await builder.getByRole('button', { name: 'Add a question' }).click();
    const q2 = builder.getByTestId('build-q-2');
    await q2.getByLabel('Question', { exact: true }).fill('How good is it?');
    await q2.getByLabel('Kind').selectOption('rating');

    await builder.getByRole('button', { name: 'Add a question' }).click();
    const q3 = builder.getByTestId('build-q-3');
    await q3.getByLabel('Question', { exact: true }).fill('Anything else?');
    await q3.getByLabel('Kind').selectOption('text');
    await q3.getByLabel('Required').uncheck();

    await builder.getByRole('button', { name: 'Create survey' }).click();
    await builder.getByRole('status').filter({ hasText: 'Survey created.' }).waitFor();
    await page.getByTestId('survey-row').filter({ hasText: TITLE }).getByText('0 responses').waitFor();
  });

  test('a user answers it in the dialog, once', async () => {
    const { page, token } = users.user;
    await page.goto(new URL('/en/', backend.url).href);
    await online(page);
    const dialog = page.getByTestId('survey-dialog');
    await dialog.getByText('Which tool do you use most?').waitFor();
    await dialog.getByLabel('Video, with sound').check();
    await dialog.getByRole('button', { name: 'Send answers' }).click();
    await page.getByTestId('survey-q-q2').getByRole('alert').filter({ hasText: 'Please answer this question.' }).waitFor();
    await dialog.getByRole('radio', { name: '4 of 5' }).click();
    await dialog.getByRole('textbox', { name: 'Anything else?' }).fill('Faster video, "please", = more');
    await page.screenshot({ path: path.join(SHOTS, 'surveys-dialog.png') });
    await dialog.getByRole('button', { name: 'Send answers' }).click();
    await page.getByText('Thank you for your answers!').waitFor();
    await dialog.waitFor({ state: 'detached' });

    // Answered: not offered again, and a second answer is refused.
    await page.reload();
    await online(page);
    const open = await apiPost(backend.url, '/api/v1/app/questionnaire_survey', {}, token);
    assert.deepEqual(open.items, []);
    assert.equal(await page.getByTestId('survey-dialog').count(), 0);
  });

  test('the operator sees the results and downloads the CSV', async () => {
    const { page } = users.op;
    await page.getByTestId('survey-row').filter({ hasText: TITLE }).getByRole('button', { name: 'Results' }).click();
    const results = page.getByTestId('survey-results');
    await results.getByText('1 responses').waitFor();
    assert.equal((await results.getByTestId('bar-q1-o2').textContent())?.trim(), '1');
    assert.equal((await results.getByTestId('bar-q1-o1').textContent())?.trim(), '0');
    assert.equal((await results.getByTestId('bar-q2-4').textContent())?.trim(), '1');
    await results.getByText('Average 4.00').waitFor();
    await results.getByText('Faster video, "please", = more').waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'surveys-results.png'), fullPage: true });

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('survey-row').filter({ hasText: TITLE }).getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    const csv = await readFile(await download.path(), 'utf8');
    const lines = csv.trim().split('\n');
    assert.equal(lines[0], 'submitted_at,account,Which tool do you use most?,How good is it?,Anything else?');
    assert.equal(lines.length, 2, csv);
    assert.match(lines[1], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ,[^,]+,"Video, with sound",4,"Faster video, ""please"", = more"$/);
    assert.deepEqual(pageProblems, []);
  });
});
