/* global document, window -- page.evaluate callbacks run in the browser */
// Browser test of stored XSS (issue 23, hardening): classic payloads are
// stored through the real API (the UI where that is the only way) in every
// user-controlled text field the web app renders, then each page that shows
// them is visited in Chromium, which must show them as text and run none:
// no dialog, `window.__xss` never set, and no element, event-handler
// attribute, srcdoc or javascript: URL made from a payload in the DOM. A
// Content-Security-Policy console error is a failure too (a CSP block alone
// would mean the payload had become markup). Markdown fields (articles,
// activity rules) are rendered by the server's sanitiser: there, the safe
// Markdown shows and nothing active survives. A first control shows the
// checks catch the same payloads when a page does make markup of them, with
// and without a CSP blocking them. Screenshots go to web/test-results/xss-*.png.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startBackend, WEB_DIR } from './backend.mjs';
import { apiCall, apiPost, OK, online, ringPng, makePicture, signUp, tinyLora, uploadPng } from './helpers.mjs';
import { ALL, MARKDOWN, P, V, field, injected } from './xssPayloads.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(WEB_DIR, 'test-results');
const WAIT_MS = 30_000;
const OPERATOR = 'xss-operator@example.com';

/** @type {Awaited<ReturnType<typeof startBackend>> | undefined} */
let backend;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {Record<string, {token: string, id: string, page: import('playwright-core').Page}>} */
const users = {};
const problems = [];
/** What the tests made: ids of works, channels... */
const made = /** @type {Record<string, string>} */ ({});
/** The fields checked on a page, and the ones refused by the server: for the summary at the end. */
const covered = [];

const at = (p) => new URL(p, backend.url).href;
const as = (key) => (pathname, body) => apiPost(backend.url, pathname, body ?? {}, users[key].token);

/** Records the page's CSP violations in `window.__csp` (read by {@link assertInert}). */
async function recordCsp(context) {
  await context.addInitScript(() => {
    const w = /** @type {any} */ (window);
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`));
  });
}

function watch(page, who) {
  page.setDefaultTimeout(WAIT_MS);
  page.on('pageerror', (e) => problems.push(`${who} pageerror: ${e.message}`));
  page.on('dialog', (d) => {
    problems.push(`${who} dialog (${d.type()}): ${d.message()} at ${page.url()}`);
    void d.dismiss().catch(() => {});
  });
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content.Security.Policy/i.test(m.text())) problems.push(`${who} csp: ${m.text()}`);
  });
}

async function newUser(key, name, email) {
  const password = `xss-test-${key}-pass-1`;
  const data = email
    ? await apiPost(backend.url, '/api/v1/account/sign-up', { email, password, name })
    : await signUp(backend.url, { prefix: `xss-${key}`, password, name });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await recordCsp(context);
  await context.addCookies([{ name: 'T', value: data.token, url: backend.url, sameSite: 'Lax' }]);
  const page = await context.newPage();
  watch(page, key);
  users[key] = { token: data.token, id: data.account.id, page };
  return users[key];
}


/** Fails when a payload ran or became markup in `page`. */
async function assertInert(page, where) {
  // Give late handlers (onerror after a failed image load, srcdoc frames) a moment.
  await page.waitForTimeout(300);
  const ran = await page.evaluate(() => /** @type {any} */ (window).__xss);
  assert.equal(ran, undefined, `a payload ran on ${where} (window.__xss = ${ran})`);
  assert.deepEqual(await injected(page), [], `payload markup in the DOM of ${where}`);
  assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__csp), [], `CSP violations on ${where}`);
  assert.deepEqual(problems, [], `dialogs, page or CSP errors by ${where}`);
}

/** Waits until each text is visible on the page (shown as text), then asserts nothing ran. */
async function shows(page, where, texts, scope = page) {
  for (const t of texts) {
    await scope
      .getByText(t, { exact: false })
      .first()
      .waitFor({ state: 'visible' })
      .catch((e) => assert.fail(`${where}: "${t}" not shown as text (${e.message.split('\n')[0]})`));
  }
  covered.push(`${where}: ${texts.length} field(s)`);
  await assertInert(page, where);
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(SHOTS, `xss-${name}.png`) });
}


describe('stored XSS: payloads in every rendered text field stay text', { timeout: 600_000 }, () => {
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    backend = await startBackend({ env: { EASEL_ADMINS: OPERATOR, EASEL_LLM: 'scripted', EASEL_LLM_SCRIPTED_INTERVAL_MS: '20', EASEL_REFERENCE_STEP_MS: '5', EASEL_SQUARE_RANK_MS: '200' } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    await newUser('op', 'Olga Operator', OPERATOR);
    await newUser('a', V.authorName);
    await newUser('v', V.viewerName);
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await backend?.stop();
    }
    console.log(`covered:\n  ${covered.join('\n  ')}`);
  });

  test('the checks catch the payloads when they do become markup (on a page of its own, without the app)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const dialogs = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.setContent(`<main>${ALL}<a href="${P.js}">js</a></main>`);
    await page.waitForFunction(() => /** @type {any} */ (window).__xss !== undefined);
    const found = await injected(page);
    for (const bit of ['img[onerror=', 'svg[onload=', 'iframe ', 'a[href="javascript:', 'script: ', 'img[src="x"]']) {
      assert.ok(
        found.some((f) => f.startsWith(bit)),
        `the check finds ${bit}: ${JSON.stringify(found)}`,
      );
    }
    // Under a CSP that blocks them, nothing runs, but the markup is still found and the block recorded.
    const strict = await browser.newContext();
    await recordCsp(strict);
    const blocked = await strict.newPage();
    await blocked.route('http://xss.test/', (r) =>
      r.fulfill({ contentType: 'text/html', headers: { 'Content-Security-Policy': "script-src 'none'" }, body: `<main>${ALL}</main>` }),
    );
    await blocked.goto('http://xss.test/');
    await blocked.waitForFunction(() => /** @type {any} */ (window).__csp.length > 0);
    assert.equal(await blocked.evaluate(() => /** @type {any} */ (window).__xss), undefined);
    assert.ok((await injected(blocked)).some((f) => f.startsWith('img[onerror=')));
    await strict.close();
    await context.close();
  });

  test('profile: display name, bio and links; a javascript: link is refused', async () => {
    const post = as('a');
    await apiPost(backend.url, '/api/v1/account/profile/edit', { bio: field('BIO') }, users.a.token);
    // A javascript: (or data:) link is refused by the server.
    for (const bad of [P.js, 'JavaScript:window.__xss=1', ' javascript:window.__xss=1', 'data:text/html,<script>parent.__xss=1</script>']) {
      const answer = await apiCall(backend.url, '/api/v1/account/prefs/update', { links: [bad] }, users.a.token);
      assert.notEqual(answer.status?.code, OK, `the link ${bad} was accepted: ${JSON.stringify(answer)}`);
    }
    // An http(s) link carrying markup is kept as a URL and shown as its text.
    await post('/api/v1/account/prefs/update', { links: [`https://example.com/?q="><script>window.__xss=1</script>`] });

    const page = users.v.page;
    await page.goto(at(`/en/user/${encodeURIComponent(users.a.id)}`));
    const profile = page.getByTestId('profile');
    await profile.getByRole('heading', { name: V.authorName }).waitFor();
    await shows(page, 'profile page', [V.authorName, 'BIO <script>', 'BIO <script>window.__xss=(window.__xss||0)+1</script> <img src=x onerror='], profile);
    const hrefs = await profile.getByTestId('profile-links').locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    assert.equal(hrefs.length, 1);
    assert.match(hrefs[0] ?? '', /^https:\/\/example\.com\//);
    await shot(page, 'profile');
  });

  test('square: a work’s title and description, its card, its page, a comment and the author’s notification', async () => {
    const post = as('a');
    const taskId = await makePicture(post, field('PROMPT'), 7);
    ({ id: made.work } = await post('/api/v1/post/portfolio/add_v2', {
      task_ids: [taskId],
      title: V.workTitle,
      description: field('DESC'),
      tags: ['xss'],
      visibility: 'public',
    }));
    // Take the publication's task awards as seen, so no popup covers the pages.
    await apiCall(backend.url, '/api/v1/face-photo/mark-user-activity-award-list', {}, users.a.token);
    const detail = await as('v')('/api/v1/artwork/detail', { id: made.work });
    await as('v')('/api/v1/comment2/create', { obj_id: made.work, obj_type: detail.obj_type, content: field('COMMENT') });

    const page = users.v.page;
    await page.goto(at('/en/'));
    await online(page);
    await page.getByRole('tab', { name: 'New' }).click();
    const card = page.locator(`[data-testid="work-card"][data-id="${made.work}"]`);
    await shows(page, 'square card', [V.workTitle], card);
    await shot(page, 'square');

    await page.goto(at(`/en/artWorkDetail/${encodeURIComponent(made.work)}`));
    const work = page.getByTestId('work-page');
    await work.getByRole('heading', { name: V.workTitle }).waitFor();
    await work.getByTestId('comment-text').first().waitFor();
    await shows(page, 'work page', [V.workTitle, 'DESC <script>', V.authorName, 'COMMENT <script>', 'COMMENT <script>window.__xss=(window.__xss||0)+1</script> <img src=x', V.viewerName], work);
    // The prompt (the work's parameters) is user text too.
    await shows(page, 'work page parameters', ['PROMPT <script>'], work);
    await shot(page, 'work');

    // The author's bell: "<viewer> commented: <comment>".
    const a = users.a.page;
    await a.goto(at('/en/'));
    await online(a);
    await a.getByTestId('bell').click();
    await shows(a, 'notifications', [`${V.viewerName} commented: COMMENT <script>`], a.getByTestId('notifications'));
    await shot(a, 'notifications');
  });

  test('square, more: a reply, tags, the author’s works on the profile, the task’s prompt, search (and its reflected query)', async () => {
    const detail = await as('v')('/api/v1/artwork/detail', { id: made.work });
    const { items } = await as('a')('/api/v1/comment2/list', { obj_id: made.work, obj_type: detail.obj_type, order: 'new' });
    await as('a')('/api/v1/comment2/add-replies', { obj_id: made.work, obj_type: detail.obj_type, parent_id: items[0].id, content: field('REPLY') });
    // A tag carrying markup: refused, or kept as text.
    const tagged = await apiCall(backend.url, '/api/v1/portfolio/edit', { id: made.work, tags: ['xss', '<img src=x onerror=window.__xss=1>'] }, users.a.token);
    const tagKept = tagged.status?.code === OK;
    covered.push(`work tags: a tag with markup was ${tagKept ? 'kept (checked as text below)' : `refused (${JSON.stringify(tagged.status)})`}`);

    const page = users.v.page;
    await page.goto(at(`/en/artWorkDetail/${encodeURIComponent(made.work)}`));
    const work = page.getByTestId('work-page');
    await work.getByRole('heading', { name: V.workTitle }).waitFor();
    const replies = work.getByRole('button', { name: /more repl/i }).first();
    if (await replies.isVisible().catch(() => false)) await replies.click();
    await shows(page, 'work page reply', ['REPLY <script>', ...(tagKept ? ['#<img src=x'] : [])], work);

    await page.goto(at(`/en/user/${encodeURIComponent(users.a.id)}`));
    const profile = page.getByTestId('profile');
    await shows(page, 'profile works', [V.workTitle], profile.locator('[data-testid="work-card"]'));

    const a = users.a.page;
    await a.goto(at('/en/create'));
    await online(a);
    await shows(a, 'task card prompt', ['PROMPT <script>'], a.getByTestId('task-card').first());

    const q = '<img src=x onerror=window.__xss=1>"><svg onload=alert(1)>';
    await page.goto(at(`/en/search?q=${encodeURIComponent(q)}`));
    await shows(page, 'search page query', [q], page.getByTestId('search-page'));
    await page.goto(at(`/en/search?q=xss`));
    const results = page.getByTestId('search-page');
    await results.locator(`[data-testid="work-card"][data-id="${made.work}"]`).waitFor();
    await shows(page, 'search results', [V.workTitle], results);
    const input = page.getByTestId('search-input').first();
    await input.fill('');
    await input.pressSequentially('<img', { delay: 20 });
    await page.waitForTimeout(500);
    await assertInert(page, 'search suggestions');
    await shot(page, 'search');
  });

  test('moderation: a report’s details, shown to the operator in the queue', async () => {
    const detail = await as('v')('/api/v1/artwork/detail', { id: made.work });
    await as('v')('/api/v1/report', { obj_id: made.work, obj_type: detail.obj_type, reason: 'other', text: field('REPORT') });
    const op = users.op.page;
    await op.goto(at('/en/moderation'));
    await online(op);
    const item = op.locator(`[data-testid="queue-item"][data-kind="report"][data-obj-id="${made.work}"]`);
    await shows(op, 'moderation queue', ['REPORT <script>', V.workTitle], item);
    await shot(op, 'moderation');
  });

  test('article: the title as text, the Markdown body sanitised', async () => {
    ({ id: made.article } = await as('a')('/api/v1/post/article/add', {
      title: V.articleTitle,
      content: MARKDOWN('ART'),
      tags: [],
      visibility: 'public',
      nsfw: false,
    }));
    const page = users.v.page;
    await page.goto(at(`/en/articleDetail/${encodeURIComponent(made.article)}`));
    const body = page.getByTestId('article-body');
    await body.getByRole('heading', { name: 'ART heading' }).waitFor();
    await body.locator('strong', { hasText: 'bold ART' }).waitFor();
    assert.equal(await body.getByRole('link', { name: 'safe link' }).getAttribute('href'), 'https://example.com/');
    await shows(page, 'article page', [V.articleTitle, 'raw ART', 'cover ART']);
    // The javascript: links lost their target; the handler and the style are gone.
    for (const name of ['click ART', 'raw ART']) {
      const href = await body.getByText(name).evaluate((el) => el.closest('a')?.getAttribute('href') ?? null);
      assert.ok(href === null || !/^\s*javascript:/i.test(href), `${name}: ${href}`);
    }
    assert.equal(await body.locator('[style], svg, iframe, script').count(), 0);
    await shot(page, 'article');
  });

  test('tavern: a character’s name, description, persona, scenario and greeting, on the grid, its page and in a chat', async () => {
    ({ id: made.character } = await as('a')('/api/v1/tavern-pro/publish', {
      name: V.characterName,
      description: field('CDESC'),
      persona: field('PERSONA'),
      scenario: field('SCENARIO'),
      greeting: field('GREETING'),
      tags: ['xss'],
      gender: 'female',
      character_type: 1,
      published: true,
    }));
    const page = users.v.page;
    await page.goto(at('/en/tavern'));
    const card = page.getByTestId('character-card').filter({ hasText: 'CN <script>' });
    await shows(page, 'tavern grid', [V.characterName], card);
    await page.goto(at(`/en/tavern/character/${encodeURIComponent(made.character)}`));
    const detail = page.getByTestId('character-detail');
    await detail.getByRole('heading', { name: V.characterName }).waitFor();
    await shows(page, 'character page', [V.characterName, 'CDESC <script>', 'PERSONA <script>', 'SCENARIO <script>', 'GREETING <script>'], detail);
    await shot(page, 'character');
    await page.getByRole('button', { name: 'Start a chat' }).click();
    const greeting = page.getByTestId('chat-message').filter({ hasText: 'GREETING <script>' });
    await shows(page, 'tavern chat', ['GREETING <script>window.__xss=(window.__xss||0)+1</script> <img src=x'], greeting);
    // A message typed in the chat (and the character's answer to it).
    const box = page.getByRole('textbox', { name: /^Message / });
    await box.fill(field('CHAT'));
    await box.press('Enter');
    const mine = page.locator('[data-testid="chat-message"][data-role="user"]').filter({ hasText: 'CHAT <script>' });
    await page.locator('[data-testid="chat-message"][data-role="assistant"]').nth(1).waitFor();
    await shows(page, 'tavern chat message', ['CHAT <script>window.__xss=(window.__xss||0)+1</script> <img src=x'], mine);
    // A datacard (the reader's own notes for chats): its title and text in the chat's panel.
    await as('v')('/api/v1/datacard/create', { title: `DC ${P.img}`, content: field('DCTEXT') });
    await page.getByRole('button', { name: 'Datacards' }).click();
    await shows(page, 'tavern datacards', [`DC ${P.img}`], page.getByTestId('datacards-panel'));
    // A chat's title, in the list of chats.
    const sessions = await as('v')('/api/v1/character/session/list', { character_id: made.character, limit: 5 });
    const sid = (sessions.items ?? sessions.list ?? [])[0]?.id ?? (sessions.items ?? sessions.list ?? [])[0]?.session_id;
    assert.ok(sid, `a chat session: ${JSON.stringify(sessions)}`);
    await as('v')('/api/v1/character/session/edit', { session_id: sid, title: `ST ${P.iframe}` });
    await page.reload();
    await shows(page, 'tavern chat list', [`ST ${P.iframe}`], page.locator('nav.sessions'));
    await shot(page, 'chat');
  });

  test('channels: the channel’s name, members’ names and messages', async () => {
    const created = await as('a')('/api/v1/im/channel/create', { name: V.channelName, private: false });
    made.channel = String(created.channel_id ?? created.id);
    await as('v')('/api/v1/im/channel/join', { invite_code: created.invite_code });
    await as('a')('/api/v1/im/message/send', { channel_id: made.channel, content: field('MSG') });
    await as('a')('/api/v1/im/message/send', { channel_id: made.channel, content: P.js });
    await as('a')('/api/v1/im/message/send', { channel_id: made.channel, content: `MD2 ${P.md} https://example.com/"><img src=x onerror=window.__xss=1>` });

    const page = users.v.page;
    await page.goto(at('/en/channels'));
    await online(page);
    await shows(page, 'channel list', [V.channelName]);
    await page.goto(at(`/en/channels/${encodeURIComponent(made.channel)}`));
    await page.getByRole('heading', { name: `# ${V.channelName}` }).waitFor();
    await shows(page, 'channel page', [V.channelName, 'MSG <script>', P.js, 'MD2 [x](javascript:alert(1))', V.authorName, V.viewerName]);
    await shot(page, 'channel');
  });

  test('activities: the operator’s title and Markdown rules, on the list, the page and the console', async () => {
    const now = Date.now();
    await as('op')('/api/v1/admin/activity/create', {
      title: V.activityTitle,
      rules: MARKDOWN('RULES'),
      cover: null,
      periods: [{ start: now - 60_000, end: now + 3_600_000 }],
      types: ['work'],
      prizes: [100],
      judging: 'votes',
      daily: false,
      max_entries: 1,
      excellent_count: 1,
    });
    const { items } = await as('op')('/api/v1/admin/activity/list');
    made.activity = items.find((x) => x.title === V.activityTitle)?.id;
    assert.ok(made.activity, 'the activity is listed');

    const page = users.v.page;
    await page.goto(at('/en/activities'));
    const tile = page.locator(`[data-testid="activity-tile"][data-id="${made.activity}"]`);
    await shows(page, 'activities list', [V.activityTitle], tile);
    await page.goto(at(`/en/activities/${encodeURIComponent(made.activity)}`));
    const detail = page.getByTestId('activity-page');
    const rules = detail.getByTestId('activity-rules');
    await rules.locator('strong', { hasText: 'bold RULES' }).waitFor();
    await shows(page, 'activity page', [V.activityTitle, 'raw RULES', 'cover RULES'], detail);
    assert.equal(await rules.locator('[style], svg, iframe, script').count(), 0);
    await shot(page, 'activity');

    const op = users.op.page;
    await op.goto(at('/en/operate/activities'));
    await shows(op, 'operator’s activity console', [V.activityTitle], op.getByTestId('operate-activities'));
  });

  test('home: the operator’s banner, module and popup; javascript: and data: links are refused', async () => {
    const post = as('op');
    let { draft } = await post('/api/v1/admin/home/draft');
    const targeting = { audiences: [], languages: [] };
    const schedule = {};
    for (const link of [P.js, 'JAVASCRIPT:window.__xss=1', 'data:text/html,<script>parent.__xss=1</script>']) {
      const answer = await apiCall(
        backend.url,
        '/api/v1/admin/home/banner/save',
        { version: draft.version, item: { id: '', title: 'bad link', image: '/favicon.svg', link, slot: 'home-top', order: 0, enabled: true, targeting, schedule } },
        users.op.token,
      );
      assert.notEqual(answer.status?.code, OK, `the banner link ${link} was accepted: ${JSON.stringify(answer)}`);
      const popup = await apiCall(
        backend.url,
        '/api/v1/admin/home/popup/save',
        { version: draft.version, item: { id: '', kind: 'notice', title: 'bad link', body: '', image: '', link, cap: 'every_visit', allow_dont_pop: true, away_days: 0, order: 0, enabled: true, targeting, schedule } },
        users.op.token,
      );
      assert.notEqual(popup.status?.code, OK, `the popup link ${link} was accepted: ${JSON.stringify(popup)}`);
    }
    ({ draft } = await post('/api/v1/admin/home/banner/save', {
      version: draft.version,
      item: { id: '', title: V.bannerTitle, image: '/favicon.svg', link: '/en/', slot: 'home-top', order: 0, enabled: true, targeting, schedule },
    }));
    ({ draft } = await post('/api/v1/admin/home/popup/save', {
      version: draft.version,
      item: {
        id: '',
        kind: 'face_photo',
        title: V.popupTitle,
        body: field('POPUPBODY'),
        image: '/favicon.svg',
        link: '/en/',
        cap: 'every_visit',
        allow_dont_pop: true,
        away_days: 0,
        order: 0,
        enabled: true,
        targeting: { audiences: ['visitor'], languages: [] },
        schedule,
      },
    }));
    // A module: its title, and its elements (the work, the character, the activity) with their own titles.
    const moduleItem = (link, title) => ({
      id: '',
      slot: 'home-modules',
      order: 0,
      enabled: true,
      title,
      elements: [
        { kind: 'work', id: made.work },
        { kind: 'character', id: made.character },
        { kind: 'activity', id: made.activity },
      ],
      link,
      targeting,
      schedule,
    });
    for (const link of [P.js, 'data:text/html,<script>parent.__xss=1</script>']) {
      const answer = await apiCall(backend.url, '/api/v1/admin/home/module/save', { version: draft.version, item: moduleItem(link, 'bad link') }, users.op.token);
      assert.notEqual(answer.status?.code, OK, `the module link ${link} was accepted: ${JSON.stringify(answer)}`);
    }
    ({ draft } = await post('/api/v1/admin/home/module/save', { version: draft.version, item: moduleItem('/en/', V.moduleTitle) }));
    await post('/api/v1/admin/home/publish', { version: draft.version });

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await recordCsp(context);
    const page = await context.newPage();
    watch(page, 'visitor');
    const answered = () => page.waitForResponse((r) => r.url().endsWith('/api/v1/face-photo/get'));
    let got = answered();
    await page.goto(at('/en/'));
    await got;
    const banner = page.getByTestId('home-slot-home-top').getByTestId('home-banner');
    await shows(page, 'home banner', [V.bannerTitle], banner);
    // The popup is asked for on the load after the one that set the device cookie.
    if (!(await page.getByTestId('face-popup').isVisible())) {
      got = answered();
      await page.reload();
      await got;
    }
    const popup = page.getByTestId('face-popup');
    await shows(page, 'home popup', [V.popupTitle, 'POPUPBODY <script>'], popup);
    await shot(page, 'home-popup');
    await popup.getByTestId('face-popup-close').click();
    await popup.waitFor({ state: 'detached' });
    const modules = page.getByTestId('home-slot-home-modules');
    await shows(page, 'home module', [V.moduleTitle, V.workTitle, V.characterName, V.activityTitle], modules);
    await modules.scrollIntoViewIfNeeded();
    await shot(page, 'home-module');
    await context.close();

    const op = users.op.page;
    await op.goto(at('/en/operate/home'));
    const composer = op.getByTestId('home-composer');
    await shows(op, 'operator’s home composer', [`Banner · ${V.bannerTitle}`, `Popup · ${V.popupTitle}`, V.moduleTitle], composer.getByTestId('draft-items'));
  });

  test('models: a LoRA’s name and description (uploaded through the wizard), on its page and in the feed', async () => {
    const page = users.a.page;
    await page.goto(at('/en/models/new'));
    await online(page);
    await page.getByTestId('wizard-file').setInputFiles({ name: 'xss_lora.safetensors', mimeType: 'application/octet-stream', buffer: tinyLora('xss_lora', { '10_ezlxss': { ezlxss: 24, harbour: 20 } }) });
    await page.getByTestId('wizard-detected').waitFor();
    const form = page.getByTestId('wizard-form');
    await form.getByLabel('Name', { exact: true }).fill(V.modelName);
    await form.getByLabel('Description').fill(field('MDESC'));
    await form.getByLabel('Trigger words').fill(`ezlxss, TW <img src=x onerror=window.__xss=1>`);
    const created = page.waitForResponse((r) => r.url().endsWith('/api/v1/resource/createModel'));
    await page.getByTestId('wizard-publish').click();
    const answer = await (await created).json();
    assert.equal(answer.status.code, OK, JSON.stringify(answer.status));
    made.model = answer.data.model_id;
    await page.getByTestId('wizard-done').waitFor();
    await page.getByTestId('wizard-open').click();
    await page.getByTestId('model-detail').waitFor();
    const detailUrl = page.url();

    const v = users.v.page;
    await v.goto(detailUrl);
    const detail = v.getByTestId('model-detail');
    await shows(v, 'model page', [V.modelName, 'MDESC <script>', 'TW <img src=x'], detail);
    await shot(v, 'model');
    await v.goto(at('/en/models'));
    await shows(v, 'models feed', [V.modelName], v.getByTestId('model-card').filter({ hasText: 'MN <img' }));

    // A training dataset's name and tags, on the author's datasets page.
    const dataset = await as('a')('/api/v1/dataset/create', { name: `DS ${P.svg}`, kind: 'style', tags: ['xss'] });
    await page.goto(at('/en/models/datasets'));
    await shows(page, 'datasets', [`DS ${P.svg}`]);
    await page.goto(at(`/en/models/datasets/${encodeURIComponent(dataset.dataset_id)}`));
    await shows(page, 'dataset page', [`DS ${P.svg}`]);
  });

  test('agent: a message to the prompt agent, its reply and the conversation’s title', async () => {
    const page = users.v.page;
    await page.goto(at('/en/agent'));
    await online(page);
    const box = page.getByRole('textbox', { name: 'Message to the agent' });
    await box.fill(field('AGENT'));
    await box.press('Enter');
    await page.getByTestId('agent-user-message').filter({ hasText: 'AGENT <script>' }).waitFor();
    await page.locator('[data-testid="agent-reply"][aria-busy="false"]').last().waitFor();
    await shows(page, 'agent', ['AGENT <script>window.__xss=(window.__xss||0)+1</script> <img src=x'], page.getByTestId('agent-user-message'));
    await shot(page, 'agent');
    await page.reload();
    await shows(page, 'agent conversation list', ['AGENT <script>']);
  });

  test('ornaments: the operator’s name and description, in the shop', async () => {
    const picture = await uploadPng(backend.url, await ringPng(users.op.page), users.op.token, 'ornament.png');
    const answer = await apiCall(
      backend.url,
      '/api/v1/admin/ornament/upsert',
      { slot: 'avatar', name: `OR ${P.svg}`, description: field('ORDESC'), price: 10, image: { url: picture } },
      users.op.token,
    );
    assert.equal(answer.status?.code, OK, JSON.stringify(answer.status));
    const page = users.v.page;
    await page.goto(at('/en/ornaments'));
    const tile = page.locator(`[data-testid="ornament-item"][data-id="${answer.data.ornament_id}"]`);
    await shows(page, 'ornament shop', [`OR ${P.svg}`], tile);
    await tile.click();
    await page.waitForTimeout(300);
    await shows(page, 'ornament shop, chosen', ['ORDESC <script>']);
    await shot(page, 'ornaments');
  });

  test('surveys: the operator’s title, description, questions and options, and a user’s text answer in the results', async () => {
    const q = (id, kind, title, options = []) => ({ id, kind, title, required: kind !== 'text', options, min_choices: 0, max_choices: 0, max_chars: 0 });
    const survey = await as('op')('/api/v1/admin/survey/create', {
      title: V.surveyTitle,
      description: field('SDESC'),
      questions: [
        q('q1', 'single', field('Q1'), [
          { id: 'o1', label: `O1 ${P.img}` },
          { id: 'o2', label: `O2 ${P.iframe}` },
        ]),
        q('q2', 'text', `Q2 ${P.svg}`),
      ],
      audience: 'all',
      opens_at: null,
      closes_at: null,
    });
    const page = users.v.page;
    await page.goto(at('/en/'));
    await online(page);
    const dialog = page.getByRole('dialog', { name: V.surveyTitle });
    await dialog.getByTestId('survey-dialog').waitFor();
    await shows(page, 'survey dialog', [V.surveyTitle, 'SDESC <script>', 'Q1 <script>', 'O1 <img', 'O2 "><iframe', 'Q2 <svg'], dialog);
    await shot(page, 'survey');
    await dialog.getByLabel('O1 <img', { exact: false }).check();
    await dialog.getByRole('textbox').fill(field('ANSWER'));
    await dialog.getByRole('button', { name: 'Send answers' }).click();
    await page.getByText('Thank you for your answers!').waitFor();
    await assertInert(page, 'after answering the survey');

    // The operator is offered the survey too (audience all): answered here, so no dialog covers the console.
    await as('op')('/api/v1/app/questionnaire_survey_submit', { survey_id: survey.id, answers: [{ question_id: 'q1', choices: ['o2'] }] });
    const op = users.op.page;
    await op.goto(at('/en/operate/surveys'));
    await online(op);
    const row = op.getByTestId('survey-row').filter({ hasText: 'SV <script>' });
    await shows(op, 'survey list', [V.surveyTitle], row);
    await row.getByRole('button', { name: 'Results' }).click();
    const results = op.getByTestId('survey-results');
    await shows(op, 'survey results', ['Q1 <script>', 'O1 <img', 'Q2 <svg', 'ANSWER <script>'], results);
    await shot(op, 'survey-results');
    made.survey = survey.id;
  });

  test('moderation, more: a hide reason shown to the owner (page and notification), an appeal’s text in the queue', async () => {
    // The author is offered the survey too: answered, so no dialog covers the pages.
    await as('a')('/api/v1/app/questionnaire_survey_submit', { survey_id: made.survey, answers: [{ question_id: 'q1', choices: ['o1'] }] });
    const detail = await as('a')('/api/v1/artwork/detail', { id: made.work });
    const obj = { obj_id: made.work, obj_type: detail.obj_type };
    await as('op')('/api/v1/review/hide', { ...obj, reason: field('HIDE') });
    await as('a')('/api/v1/resource/nsfw-appeal/create', { ...obj, text: field('APPEAL') });

    const page = users.a.page;
    await page.goto(at(`/en/artWorkDetail/${encodeURIComponent(made.work)}`));
    await online(page);
    const notice = page.getByTestId('work-page').getByTestId('owner-moderation');
    await shows(page, 'owner’s moderation notice', ['Reason: HIDE <script>'], notice);
    await page.getByTestId('bell').click();
    await shows(page, 'moderation notification', ['HIDE <script>'], page.getByTestId('notifications'));
    await shot(page, 'moderation-owner');

    const op = users.op.page;
    await op.goto(at('/en/moderation'));
    await online(op);
    const item = op.locator(`[data-testid="queue-item"][data-kind="appeal"][data-obj-id="${made.work}"]`);
    await shows(op, 'moderation queue appeal', ['APPEAL <script>'], item);
    await item.locator('summary').first().click();
    await shows(op, 'moderation history', ['HIDE <script>'], item);
    await shot(op, 'moderation-appeal');
  });

  test('no dialogs, page errors or CSP errors anywhere', () => {
    assert.deepEqual(problems, []);
  });
});
