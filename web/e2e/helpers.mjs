// Helpers shared by the browser tests: the backend's JSON API, polling a page
// until a check holds, the socket's online badge, the tavern chat on screen
// (its messages and a log of the newest reply as it streams in), and signing
// up and creating a character.
/* global document, window, MutationObserver -- used inside page.evaluate callbacks */
import assert from 'node:assert/strict';

/** The code of a successful answer in the `{status: {code, key, msg}, data}` envelope. */
export const OK = 10000;

/**
 * POSTs `body` as JSON to the backend at `baseUrl` (with the `token` header when
 * one is given; no body when `body` is undefined) and answers the whole
 * envelope `{status, data}`, whatever its code. For tests that look at failures.
 */
export async function apiCall(baseUrl, pathname, body, token) {
  const res = await fetch(new URL(pathname, baseUrl), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { token } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

/** Like {@link apiCall}, but asserts the call succeeded (code 10000) and answers its `data`. */
export async function apiPost(baseUrl, pathname, body, token) {
  const json = await apiCall(baseUrl, pathname, body, token);
  assert.equal(json.status?.code, OK, `${pathname}: ${JSON.stringify(json.status)}`);
  return json.data;
}

/**
 * Signs a new user up through the API, with the address `<prefix>.<now>@example.com`;
 * answers the sign-up's data (`token`, …).
 */
export async function signUp(baseUrl, { prefix, password, name }) {
  return apiPost(baseUrl, '/api/v1/account/sign-up', { email: `${prefix}.${Date.now()}@example.com`, password, name });
}

/**
 * Calls `check` every 50 ms until it answers something truthy, and answers that;
 * fails after `waitMs` naming `what` and the last answer.
 */
export async function until(page, what, check, waitMs) {
  const deadline = Date.now() + waitMs;
  let last;
  while (Date.now() < deadline) {
    last = await check();
    if (last) return last;
    await page.waitForTimeout(50);
  }
  assert.fail(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
}

/** Waits for the header's socket badge to read "online". */
export async function online(page) {
  await page.getByTestId('socket-state').filter({ hasText: /^online$/ }).waitFor();
}

/** The tavern chat's messages as {role, state, text}, in order. */
export async function chatMessages(page) {
  return page.getByTestId('chat-message').evaluateAll((els) =>
    els.map((el) => ({
      role: el.getAttribute('data-role'),
      state: el.getAttribute('data-state'),
      text: el.querySelector('[data-testid="message-text"]')?.textContent ?? '',
    })),
  );
}

/** Starts (or restarts, emptied) a log of the newest assistant message's {id, text, state} on every DOM change; read it with {@link replyLog}. */
export async function watchLastReply(page) {
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

/** The log {@link watchLastReply} keeps: [{id, text, state}], oldest first. */
export async function replyLog(page) {
  return page.evaluate(() => /** @type {any} */ (window).__replyLog);
}

/** Uploads a PNG as the character's picture in the tavern's character form and waits for it to show. */
export async function uploadCharacterPicture(form, name, buffer) {
  await form.getByLabel('Upload a picture').setInputFiles({ name, mimeType: 'image/png', buffer });
  await form.locator('img.tv-avatar').waitFor();
}

/**
 * Fills the tavern's character form: name, description, gender, persona,
 * scenario, greeting, the example dialogue when given, and tags.
 */
export async function fillCharacterForm(form, c) {
  await form.getByLabel('Name', { exact: true }).fill(c.name);
  await form.getByLabel('Description').fill(c.description);
  await form.getByLabel('Gender').selectOption(c.gender);
  await form.getByLabel('Persona').fill(c.persona);
  await form.getByLabel('Scenario').fill(c.scenario);
  await form.getByLabel('Greeting').fill(c.greeting);
  if (c.exampleDialogue !== undefined) await form.getByLabel('Example dialogue').fill(c.exampleDialogue);
  await form.getByLabel('Tags').fill(c.tags);
}

/** Saves the character form and waits for the new character's page; answers its id. */
export async function saveCharacter(page, form, name) {
  await form.getByRole('button', { name: 'Save' }).click();
  await page.waitForURL(/\/en\/tavern\/character\/[^/]+$/);
  await page.getByTestId('character-detail').getByRole('heading', { name }).waitFor();
  return decodeURIComponent(page.url().split('/').pop());
}

/** A small portrait-like PNG (a gradient and a silhouette) made by the page's canvas. */
export async function portraitPng(page) {
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
