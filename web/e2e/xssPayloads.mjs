/* global document -- page.evaluate callbacks run in the browser */
// The stored-XSS browser test's payloads, its DOM check and its small
// fixtures (xss.test.mjs).
import assert from 'node:assert/strict';
import { apiPost } from './helpers.mjs';

/** The payloads; each would set `window.__xss` (or open a dialog) if it ran. */
export const P = {
  script: '<script>window.__xss=(window.__xss||0)+1</script>',
  img: '<img src=x onerror="window.__xss=(window.__xss||0)+1">',
  svg: '<svg onload="window.__xss=(window.__xss||0)+1">',
  js: 'javascript:window.__xss=1',
  iframe: '"><iframe srcdoc="<script>parent.__xss=1</script>">',
  md: '[x](javascript:alert(1))',
};
/** All of them, for the longer fields; each field's text starts with its own label. */
export const ALL = Object.values(P).join(' ');
export const field = (label) => `${label} ${ALL}`;

/** The values of the short fields (each within its server limit). */
export const V = {
  authorName: 'Au <img src=x onerror=window.__xss=1>', // display names: at most 50
  viewerName: 'Vi <svg onload=window.__xss=1>',
  workTitle: `WT ${P.img}`, // 100
  articleTitle: `AT ${P.svg}`,
  characterName: `CN ${P.script}`, // 64
  channelName: `CH ${P.iframe}`, // 64
  modelName: `MN ${P.img}`, // 80
  activityTitle: `AC ${P.svg}`, // 100
  surveyTitle: `SV ${P.script}`, // 120
  bannerTitle: `BN ${P.img}`, // 80
  popupTitle: `PP ${P.svg}`,
  moduleTitle: `MO ${P.img}`, // 80
};
/** Markdown with the payloads, raw HTML and javascript: links (articles, activity rules). */
export const MARKDOWN = (label) =>
  [
    `## ${label} heading`,
    `Some **bold ${label}** text and a [safe link](https://example.com/).`,
    ALL,
    `[click ${label}](javascript:window.__xss=1)`,
    `<a href="javascript:window.__xss=1">raw ${label}</a>`,
    `![pic](javascript:window.__xss=1)`,
    `<div onmouseover="window.__xss=1" style="position:fixed;inset:0">cover ${label}</div>`,
    P.script,
  ].join('\n\n');


/**
 * What of the payloads became live in the page: scripts carrying `__xss`,
 * event-handler attributes (React never writes one), srcdoc, iframes,
 * javascript: URLs, and, outside the sanitised Markdown bodies, the
 * payloads' `<img src=x>` and `<svg>`.
 */
export async function injected(page) {
  return page.evaluate(() => {
    const found = [];
    const markdown = '[data-testid="article-body"], [data-testid="activity-rules"]';
    const walk = (root) => {
      for (const el of root.querySelectorAll('*')) {
        const tag = el.tagName.toLowerCase();
        if (tag === 'script' && /__xss|alert/.test(el.textContent ?? '')) found.push(`script: ${el.textContent}`);
        if (tag === 'iframe') found.push(`iframe ${el.getAttribute('srcdoc') ?? el.getAttribute('src')}`);
        for (const a of el.attributes) {
          const name = a.name.toLowerCase();
          // eslint-disable-next-line no-control-regex -- browsers skip these in a URL's scheme
          const value = a.value.replace(/[\s\u0000-\u001f]/g, '').toLowerCase();
          if (name.startsWith('on')) found.push(`${tag}[${name}="${a.value}"]`);
          if (name === 'srcdoc') found.push(`${tag}[srcdoc="${a.value}"]`);
          if (['href', 'src', 'action', 'formaction', 'xlink:href', 'data'].includes(name) && value.startsWith('javascript:')) found.push(`${tag}[${name}="${a.value}"]`);
        }
        if (!el.closest(markdown)) {
          if (tag === 'img' && el.getAttribute('src') === 'x') found.push('img[src="x"]');
          if (tag === 'svg' && el.hasAttribute('onload')) found.push('svg[onload]');
        }
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    walk(document);
    return found;
  });
}

/** A small PNG drawn by the page's canvas. */
export async function pngOf(page) {
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

/** Uploads through the pre-signed flow (as e2e/mall.test.mjs does); answers the file's URL. */
export async function uploadPng(baseUrl, buffer, tok) {
  const pre = await apiPost(
    baseUrl,
    '/api/v1/resource/pre-sign/get',
    { file_size: buffer.length, file_name: 'ornament.png', content_type: 'image/png', category: 46 },
    tok,
  );
  for (const [i, url] of pre.pre_signs.entries()) {
    const part = buffer.subarray(i * pre.chunk_size, (i + 1) * pre.chunk_size);
    const res = await fetch(new URL(url, baseUrl), { method: 'PUT', headers: { 'Content-Type': 'application/octet-stream' }, body: part });
    assert.ok(res.ok, `part ${i}: ${res.status}`);
    await apiPost(baseUrl, '/api/v1/resource/pre-sign/confirm', { file_id: pre.file_id, pre_sign_url: url }, tok);
  }
  return (await apiPost(baseUrl, '/api/v1/resource/pre-sign/confirm', { file_id: pre.file_id }, tok)).url;
}

/**
 * A safetensors file (as e2e/models.test.mjs makes it): 8-byte little-endian
 * header length, the JSON header, padded with spaces to 8 bytes, then the data.
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
  const data = Buffer.alloc(offset);
  for (let i = 0; i < offset; i++) data[i] = (i * 31 + 7) & 0x3b;
  return Buffer.concat([head, Buffer.from(json), data]);
}

/** An SD 1.5-shaped kohya LoRA of rank 8 (a few layers). */
export function tinyLora() {
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
    ss_output_name: 'xss_lora',
    ss_tag_frequency: JSON.stringify({ '10_ezlxss': { ezlxss: 24, harbour: 20 } }),
    ss_num_epochs: '10',
    ss_resolution: '(512, 512)',
  });
}
