/* global document -- page.evaluate callbacks run in the browser */
// Browser test of trust and safety (issue 20) against the real backend, with
// four people in four browser contexts: an operator (EASEL_ADMINS) makes a
// moderator from the console; a user reports the owner's work (a second
// report answers "already reported"); the moderator hides it from the
// console's queue with a reason; the reporter no longer finds it, the owner
// sees the reason and appeals (with the appeals left today); the moderator
// accepts the appeal and restores the work; the operator reads the audit
// log; a plain user gets no console. Screenshots go to docs/screenshots/:
// moderation-report.png, moderation-queue.png, moderation-owner.png,
// moderation-appeal.png, moderation-bans.png, moderation-audit.png,
// moderation-moderators.png, moderation-queue-phone.png. The moderator also
// bans an account for a day from the console and lifts the ban.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { apiCall, apiPost, online, signUp, makePicture } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(WEB_DIR, '..', 'docs', 'screenshots');
const WAIT_MS = 30_000;
const OPERATOR = 'moderation-operator@example.com';
const TITLE = 'Harbour lights';
const HIDE_REASON = 'Advertises a paid service in the description';
const APPEAL_TEXT = 'The shop is my own print shop; I removed the price.';
const RESTORE_REASON = 'The owner removed the advertisement';

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {Record<'op' | 'mod' | 'owner' | 'reporter', {token: string, id: string, name: string, page: import('playwright-core').Page}>} */
const users = /** @type {any} */ ({});
let workId = '';
const pageProblems = [];

async function newUser(key, name, email) {
  const password = `moderation-test-${key}-1`;
  const data = email
    ? await apiPost(backend.url, '/api/v1/account/sign-up', { email, password, name })
    : await signUp(backend.url, { prefix: `moderation-${key}`, password, name });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addCookies([{ name: 'T', value: data.token, url: backend.url, sameSite: 'Lax' }]);
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  page.on('pageerror', (e) => pageProblems.push(`${key} pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content.Security.Policy/i.test(m.text())) pageProblems.push(`${key} csp: ${m.text()}`);
  });
  users[key] = { token: data.token, id: data.account.id, name, page };
  return users[key];
}

const asUser = (key) => (pathname, body) => apiPost(backend.url, pathname, body ?? {}, users[key].token);

async function shot(page, name) {
  await page.waitForFunction(() => [...document.images].every((img) => img.complete));
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/** The console's queue entry of the work, of one kind. */
function queueItem(page, kind) {
  return page.locator(`[data-testid="queue-item"][data-kind="${kind}"][data-obj-id="${workId}"]`);
}

describe('moderation: report, hide with a reason, appeal, restore', { timeout: 300_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend({ env: { EASEL_ADMINS: OPERATOR } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    await newUser('op', 'Olga Operator', OPERATOR);
    await newUser('mod', 'Milo Moderator');
    await newUser('owner', 'Ada Painter');
    await newUser('reporter', 'Bea Viewer');

    // The owner makes a picture and posts it, rated sensitive (as the NSFW
    // classifier would rate it): the rating is what the owner may appeal.
    const post = asUser('owner');
    const taskId = await makePicture(post, 'harbour lights at night, oil painting', 7);
    ({ id: workId } = await post('/api/v1/post/portfolio/add_v2', {
      task_ids: [taskId],
      title: TITLE,
      description: 'Prints at my shop, 20% off this week!',
      tags: ['harbour'],
      visibility: 'public',
      nsfw: true,
    }));
    assert.ok(workId);
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await backend?.stop();
    }
  });

  test('the operator makes a moderator from the console', async () => {
    const { page } = users.op;
    await page.goto(new URL('/en/', backend.url).href);
    await online(page);
    await page.getByTestId('header-moderation').click();
    await page.waitForURL(/\/en\/moderation$/);
    const console_ = page.getByTestId('moderation-page');
    assert.equal(await console_.getAttribute('data-role'), 'operator');
    await console_.getByRole('link', { name: 'Moderators' }).click();
    await page.waitForURL(/\/en\/moderation\/moderators$/);
    const view = page.getByTestId('mod-moderators');
    await view.getByLabel('Account id').fill(users.mod.id);
    await view.getByRole('button', { name: 'Grant' }).click();
    await view.locator(`[data-testid="moderator-entry"][data-account="${users.mod.id}"]`).getByText(users.mod.name).waitFor();
    await shot(page, 'moderation-moderators');
  });

  test('a user reports the work; a second report answers "already reported"', async () => {
    const { page } = users.reporter;
    await page.goto(new URL(`/en/artWorkDetail/${encodeURIComponent(workId)}`, backend.url).href);
    await online(page);
    // A plain user has no console link.
    assert.equal(await page.getByTestId('header-moderation').count(), 0);
    const work = page.getByTestId('work-page');
    await work.getByRole('heading', { name: TITLE }).waitFor();
    await work.getByTestId('report-button').click();
    const dialog = page.getByRole('dialog', { name: 'Report this work' });
    // No reason: refused before anything is sent.
    await dialog.getByRole('button', { name: 'Send report' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'Choose a reason.' }).waitFor();
    await dialog.getByLabel('Spam or advertising').check();
    await dialog.getByLabel('Details').fill('The description sells prints.');
    await shot(page, 'moderation-report');
    await dialog.getByRole('button', { name: 'Send report' }).click();
    await dialog.getByTestId('report-done').waitFor();
    await dialog.getByRole('button', { name: 'Close' }).last().click();

    await work.getByTestId('report-button').click();
    await dialog.getByLabel('Spam or advertising').check();
    await dialog.getByRole('button', { name: 'Send report' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'You already reported this.' }).waitFor();
    await page.keyboard.press('Escape');
  });

  test('the moderator hides the work from the console with a reason', async () => {
    const { page } = users.mod;
    await page.goto(new URL('/en/', backend.url).href);
    await online(page);
    await page.getByTestId('header-moderation').click();
    const console_ = page.getByTestId('moderation-page');
    assert.equal(await console_.getAttribute('data-role'), 'moderator');
    // Operators' tabs are not offered to a moderator.
    assert.equal(await console_.getByRole('link', { name: 'Audit log' }).count(), 0);
    const item = queueItem(page, 'report');
    await item.getByText('1 report').waitFor();
    await item.getByText('Spam or advertising × 1').waitFor();
    await item.getByText('Spam or advertising: The description sells prints.').waitFor();
    await item.getByRole('link', { name: TITLE }).waitFor();

    await item.getByRole('button', { name: 'Hide', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Hide: ${TITLE}` });
    // The reason is required.
    await dialog.getByRole('button', { name: 'Hide', exact: true }).click();
    await dialog.getByRole('alert').filter({ hasText: 'Give a reason.' }).waitFor();
    await dialog.getByLabel('Reason (the owner sees it)').fill(HIDE_REASON);
    await dialog.getByRole('button', { name: 'Hide', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator(`[data-testid="queue-item"][data-kind="report"][data-obj-id="${workId}"][data-state="hidden"]`).waitFor();
    await item.getByTestId('item-state').filter({ hasText: `Hidden: ${HIDE_REASON}` }).waitFor();
    await item.locator('summary').click();
    await item.getByText(`${users.mod.name} hid: ${HIDE_REASON}`).waitFor();
    await shot(page, 'moderation-queue');

    // The phone layout of the console.
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, 'moderation-queue-phone');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the console fits a 390 px phone (overflow ${overflow} px)`);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test('the hidden work is gone for others but not for its owner, who sees the reason and appeals', async () => {
    const reporter = users.reporter.page;
    await reporter.reload();
    await reporter.getByTestId('work-missing').waitFor();

    const { page } = users.owner;
    await page.goto(new URL(`/en/artWorkDetail/${encodeURIComponent(workId)}`, backend.url).href);
    await online(page);
    const work = page.getByTestId('work-page');
    await work.getByRole('heading', { name: TITLE }).waitFor();
    const notice = work.getByTestId('owner-moderation');
    assert.equal(await notice.getAttribute('data-state'), 'hidden');
    await notice.getByText('A moderator hid this work from everyone but you.').waitFor();
    await notice.getByTestId('owner-moderation-reason').filter({ hasText: `Reason: ${HIDE_REASON}` }).waitFor();
    // The decision came as a notification too.
    await page.getByTestId('bell').click();
    await page.getByTestId('notifications').getByText(new RegExp(`Moderation: .*${HIDE_REASON}`)).first().waitFor();
    await page.getByTestId('bell').click();

    await notice.getByTestId('appeal-button').click();
    const dialog = page.getByRole('dialog', { name: 'Appeal this decision' });
    await dialog.getByTestId('appeal-remaining').filter({ hasText: /Appeals left today: \d+ of \d+/ }).waitFor();
    const before = Number(await dialog.getByTestId('appeal-remaining').getAttribute('data-remaining'));
    assert.ok(before >= 1, `appeals left: ${before}`);
    await dialog.getByLabel('Why should it change?').fill(APPEAL_TEXT);
    await shot(page, 'moderation-appeal');
    await dialog.getByRole('button', { name: 'Send appeal' }).click();
    await dialog.waitFor({ state: 'detached' });
    await notice.getByTestId('appeal-status').filter({ hasText: 'Your appeal was sent.' }).waitFor();
    await shot(page, 'moderation-owner');
    // One appeal per object: a second one answers its key and the count is spent once.
    const again = await apiCall(backend.url, '/api/v1/resource/nsfw-appeal/create', { obj_id: workId, obj_type: 4, text: 'again' }, users.owner.token);
    assert.equal(again.status.key, 'appealDuplicate', JSON.stringify(again.status));
    const limit = await asUser('owner')('/api/v1/resource/nsfw-appeal/rate-limit');
    assert.equal(limit.remaining, before - 1);
  });

  test('the moderator accepts the appeal and restores the work', async () => {
    const { page } = users.mod;
    const console_ = page.getByTestId('moderation-page');
    await console_.getByRole('button', { name: 'Appeals', exact: true }).click();
    const item = queueItem(page, 'appeal');
    await item.getByTestId('appeal-text').filter({ hasText: APPEAL_TEXT }).waitFor();
    await item.getByTestId('item-state').filter({ hasText: `Hidden: ${HIDE_REASON}` }).waitFor();
    await item.getByRole('button', { name: 'Accept and restore' }).click();
    const dialog = page.getByRole('dialog', { name: `Accept and restore: ${TITLE}` });
    await dialog.getByLabel('Reason (the owner sees it)').fill(RESTORE_REASON);
    await dialog.getByRole('button', { name: 'Accept and restore' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator(`[data-testid="queue-item"][data-kind="appeal"][data-obj-id="${workId}"][data-state="visible"]`).waitFor();
    assert.equal(await item.getByRole('button', { name: 'Accept and restore' }).count(), 0);

    // Everyone sees the work again, rated safe; the owner hears of the decision.
    const reporter = users.reporter.page;
    await reporter.reload();
    await reporter.getByTestId('work-page').getByRole('heading', { name: TITLE }).waitFor();
    const owner = users.owner.page;
    await owner.reload();
    await owner.getByTestId('work-page').getByRole('heading', { name: TITLE }).waitFor();
    await owner.getByTestId('bell').click();
    await owner.getByTestId('notifications').getByText(new RegExp(`Moderation: .*${RESTORE_REASON}`)).first().waitFor();
    await owner.getByTestId('bell').click();
    // The owner's notice now only tells the appeal's outcome, with the moderator's reason.
    await owner.locator('[data-testid="owner-moderation"] [data-testid="appeal-status"][data-status="changed"]').filter({ hasText: RESTORE_REASON }).waitFor();
    assert.equal(await owner.getByTestId('owner-moderation-reason').count(), 0);
    assert.equal(await owner.getByTestId('appeal-button').count(), 0);
    const detail = await asUser('owner')('/api/v1/artwork/detail', { id: workId });
    assert.equal(detail.nsfw, false);
    assert.equal(detail.moderation ?? null, null);
  });

  test('the moderator bans an account for a day and lifts the ban; an operator cannot be banned by a moderator', async () => {
    const spammer = await signUp(backend.url, { prefix: 'moderation-spammer', password: 'moderation-test-spam-1', name: 'Sam Spammer' });
    const { page } = users.mod;
    await page.getByTestId('moderation-page').getByRole('link', { name: 'Account bans' }).click();
    await page.waitForURL(/\/en\/moderation\/bans$/);
    const view = page.getByTestId('mod-bans');
    await view.getByLabel('Account id').fill(users.op.id);
    await view.getByLabel('Length').selectOption({ label: '1 day' });
    await view.getByLabel('Reason').fill('Testing the rule');
    await view.getByRole('button', { name: 'Ban', exact: true }).click();
    await view.getByRole('alert').filter({ hasText: 'A moderator cannot act on an operator or another moderator.' }).waitFor();

    await view.getByLabel('Account id').fill(spammer.account.id);
    await view.getByLabel('Reason').fill('Posts the same advertisement everywhere');
    await view.getByRole('button', { name: 'Ban', exact: true }).click();
    const entry = view.locator(`[data-testid="ban-entry"][data-account="${spammer.account.id}"]`);
    await entry.getByText('Posts the same advertisement everywhere').waitFor();
    await entry.getByText(/until /).waitFor();
    // The banned account's token is dead.
    const dead = await apiCall(backend.url, '/api/v1/account/info', {}, spammer.token);
    assert.notEqual(dead.status.code, 10000, JSON.stringify(dead.status));
    await shot(page, 'moderation-bans');

    await entry.getByRole('button', { name: 'Lift ban' }).click();
    const dialog = page.getByRole('dialog', { name: 'Lift ban: Sam Spammer' });
    await dialog.getByLabel('Reason (the owner sees it)').fill('Promised to stop');
    await dialog.getByRole('button', { name: 'Lift ban' }).click();
    await dialog.waitFor({ state: 'detached' });
    await entry.waitFor({ state: 'detached' });
  });

  test('the operator reads the audit log; a plain user gets no console', async () => {
    const { page } = users.op;
    await page.goto(new URL('/en/moderation/audit', backend.url).href);
    const log = page.getByTestId('mod-audit');
    await log.locator('[data-testid="audit-entry"][data-action="hide"]').getByText(HIDE_REASON).waitFor();
    await log.locator('[data-testid="audit-entry"][data-action="grant_moderator"]').first().waitFor();
    await log.locator('[data-testid="audit-entry"][data-action="unban"]').getByText('Promised to stop').waitFor();
    const actions = await log.getByTestId('audit-entry').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
    assert.ok(actions.indexOf('hide') > actions.findIndex((a) => a === 'appeal_change' || a === 'unhide'), `newest first: ${actions}`);
    await shot(page, 'moderation-audit');

    const reporter = users.reporter.page;
    await reporter.goto(new URL('/en/moderation', backend.url).href);
    await reporter.getByTestId('mod-forbidden').waitFor();
    const refused = await apiCall(backend.url, '/api/v1/moderation/queue', {}, users.reporter.token);
    assert.equal(refused.status.key, 'moderatorOnly', JSON.stringify(refused.status));
  });

  test('no page errors or CSP reports', () => {
    assert.deepEqual(pageProblems, []);
  });
});
