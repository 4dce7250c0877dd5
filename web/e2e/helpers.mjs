// Helpers shared by the browser tests: the backend's JSON API, polling a page
// until a check holds, the socket's online badge, the tavern chat on screen
// (its messages and a log of the newest reply as it streams in), and signing
// up and creating a character, pictures and LoRA files made on the spot,
// uploads through the pre-signed flow, and waiting for a task's end.
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

/**
 * A safetensors file: 8-byte little-endian header length, the JSON header
 * (tensors with dtype, shape and data offsets, and `__metadata__`), padded
 * with spaces to 8 bytes, then the tensor data.
 */
export function safetensors(tensors, metadata) {
  const size = { F16: 2, F32: 4 };
  const header = { __metadata__: metadata };
  let offset = 0;
  for (const [name, dtype, shape] of tensors) {
    const bytes = shape.reduce((a, b) => a * b, 1) * size[dtype];
    header[name] = { dtype, shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const head = Buffer.alloc(8);
  head.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  // Deterministic, non-zero weights.
  const data = Buffer.alloc(offset);
  for (let i = 0; i < offset; i++) data[i] = (i * 31 + 7) & 0x3b;
  return Buffer.concat([head, Buffer.from(json), data]);
}

/** An SD 1.5-shaped kohya LoRA of rank 8 named `outputName` with its training tags (UNet attention and text-encoder layers, 768-wide context), about 1.3 MB. */
export function tinyLora(outputName, tagFrequency) {
  const tensors = [];
  const unet = 'lora_unet_down_blocks_0_attentions_0_transformer_blocks_0';
  tensors.push([`${unet}_attn2_to_k.lora_down.weight`, 'F16', [8, 768]], [`${unet}_attn2_to_k.lora_up.weight`, 'F16', [320, 8]], [`${unet}_attn2_to_k.alpha`, 'F16', []]);
  tensors.push([`${unet}_attn1_to_q.lora_down.weight`, 'F16', [8, 320]], [`${unet}_attn1_to_q.lora_up.weight`, 'F16', [320, 8]], [`${unet}_attn1_to_q.alpha`, 'F16', []]);
  for (let layer = 0; layer < 12; layer++) {
    const te = `lora_te_text_model_encoder_layers_${layer}_mlp_fc1`;
    tensors.push([`${te}.lora_down.weight`, 'F32', [8, 768]], [`${te}.lora_up.weight`, 'F32', [3072, 8]], [`${te}.alpha`, 'F16', []]);
  }
  return safetensors(tensors, {
    ss_network_module: 'networks.lora',
    ss_network_dim: '8',
    ss_network_alpha: '8.0',
    ss_base_model_version: 'sd_v1',
    ss_sd_model_name: 'v1-5-pruned-emaonly.safetensors',
    ss_output_name: outputName,
    ss_tag_frequency: JSON.stringify(tagFrequency),
    ss_num_epochs: '10',
    ss_resolution: '(512, 512)',
  });
}

/** A transparent PNG with a golden ring, drawn by the page's canvas. */
export async function ringPng(page) {
  const b64 = await page.evaluate(() => {
    const c = document.createElement('canvas');
    c.width = 128;
    c.height = 128;
    const g = c.getContext('2d');
    g.strokeStyle = '#f5c542';
    g.lineWidth = 10;
    g.beginPath();
    g.arc(64, 64, 56, 0, Math.PI * 2);
    g.stroke();
    return c.toDataURL('image/png').split(',')[1];
  });
  return Buffer.from(b64, 'base64');
}

/** Uploads a PNG through the pre-signed flow (spec 2 §7); answers the file's URL. */
export async function uploadPng(baseUrl, buffer, token, fileName = 'picture.png') {
  const pre = await apiPost(
    baseUrl,
    '/api/v1/resource/pre-sign/get',
    { file_size: buffer.length, file_name: fileName, content_type: 'image/png', category: 46 },
    token,
  );
  for (const [i, url] of pre.pre_signs.entries()) {
    const part = buffer.subarray(i * pre.chunk_size, (i + 1) * pre.chunk_size);
    const res = await fetch(new URL(url, baseUrl), { method: 'PUT', headers: { 'Content-Type': 'application/octet-stream' }, body: part });
    assert.ok(res.ok, `part ${i}: ${res.status}`);
    await apiPost(baseUrl, '/api/v1/resource/pre-sign/confirm', { file_id: pre.file_id, pre_sign_url: url }, token);
  }
  return (await apiPost(baseUrl, '/api/v1/resource/pre-sign/confirm', { file_id: pre.file_id }, token)).url;
}

/** Polls batch-progress through `post` (a signed-in caller) until the task ends; answers the task. */
export async function taskEnd(post, id, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const answer = await post('/api/v1/task/batch-progress', { task_ids: [id] });
    const task = answer.items[0];
    if (task && (task.status === 3 || task.status === 4)) return task;
    if (Date.now() > end) throw new Error(`task ${id} did not end: ${JSON.stringify(task)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/**
 * Makes one 512×512 picture with the catalogue's SD checkpoint through
 * `post` (a signed-in caller) and waits for it; answers the finished task
 * (it must have succeeded).
 */
export async function pictureTask(post, prompt, seed) {
  const catalogue = await post('/api/v1/task/v2/config/model');
  const sd = catalogue.checkpoints.find((c) => c.family === 'sd');
  assert.ok(sd, 'an sd checkpoint');
  const { id } = await post('/api/v1/task/create', {
    action: 1,
    category: 1,
    art_model_ver_no: sd.model_ver_no,
    meta: { prompt, width: 512, height: 512, n_iter: 1, steps: 8, seed },
  });
  const task = await taskEnd(post, id);
  assert.equal(task.status, 3, `the task finished: ${JSON.stringify(task)}`);
  return task;
}

/** As `pictureTask`, answering the finished task's id. */
export async function makePicture(post, prompt, seed) {
  return (await pictureTask(post, prompt, seed)).id;
}
