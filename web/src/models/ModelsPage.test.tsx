// The model pages as a visitor meets them, with fetch answered by a scripted
// server: the feed sends the filters in the spec's names and lists the
// cards; a model's page shows its versions as tabs, the file's size and
// hashes, the trigger words, the fee and "use in generator" with the
// version; a refused call shows the server's key translated.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { navigate, startRouter } from '../router/router';
import { appStore, Provider } from '../state/jotai';
import { ModelsPage } from './ModelsPage';
import type { ModelView } from './api';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const SHA = '0123456789abcdef'.repeat(4);
const version = {
  model_ver_no: 'v2', model_id: 'm1', version_name: 'v2.0', model_type: 'lora' as const, base_model: 'sd', base_model_name: 'SD 1.5', description: '', trained_words: ['ezlharbour', 'harbour'],
  status: 1, publish_status: 1, source: 'upload' as const, file: { name: 'red.safetensors', size: 1507828, format: 'safetensors', sha256: SHA, autov2: '0123456789', detected_type: 'lora' as const, detected_family: 'sd', rank: 8, tensor_count: 42, download_url: null },
  images: [], banner: null, weight: 1, create_at: 1,
};
const model: ModelView = {
  model_id: 'm1', name: 'Red Harbour', model_type: 'lora', base_model: 'sd', base_model_name: 'SD 1.5', description: 'Red light.', tags: ['harbour'], owner: { id: 'u1', name: 'Cora' }, is_mine: false, publish_status: 1,
  nsfw: false, allow_download: false, is_agency_fee: true, agency_fee: 3, cover: null, versions: [{ ...version, model_ver_no: 'v1', version_name: 'v1.0' }, version],
  stats: { uses: 4, downloads: 0, likes: 2, collects: 0, earnings: 12, comments: 0 }, create_at: 1, update_at: 1,
};

let routes: Record<string, (body: unknown) => { code?: number; key?: string; data?: unknown }>;
let calls: Array<{ path: string; body: unknown }>;
let container: HTMLDivElement;
let root: Root;
let stopRouter: () => void;

async function flush() {
  await act(async () => {
    for (let i = 0; i < 8; i++) await Promise.resolve();
  });
}

const $ = (s: string) => container.querySelector<HTMLElement>(s);
const $$ = (s: string) => [...container.querySelectorAll<HTMLElement>(s)];

beforeEach(() => {
  routes = {
    '/api/v1/task/v2/config/model': () => ({ data: { families: [{ id: 'sd', name: 'SD' }, { id: 'sdxl', name: 'SDXL' }] } }),
  };
  calls = [];
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = new URL(String(input), 'http://x').pathname;
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : null;
    calls.push({ path, body });
    const r = routes[path]?.(body) ?? { code: 40400, key: 'NotFound' };
    const code = r.code ?? 10000;
    return new Response(JSON.stringify({ status: { code, key: r.key ?? null, msg: 'm' }, data: r.data ?? null }), { headers: { 'Content-Type': 'application/json' } });
  });
  window.history.replaceState(null, '', '/en/models');
  stopRouter = startRouter(appStore);
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
  stopRouter();
  vi.unstubAllGlobals();
});

function render() {
  act(() => {
    root.render(
      <Provider store={appStore}>
        <ModelsPage />
      </Provider>,
    );
  });
}

describe('models feed', () => {
  it('lists the cards and sends the filters with the spec’s names', async () => {
    routes['/api/v1/square/v3/model/list'] = () => ({ data: { items: [{ obj_type: 2, id: 'm1', title: 'Red Harbour', content_sub_type: 'lora', sub_channel: 'sd', cover: { url: '', width: 0, height: 0 }, author: { id: 'u1', name: 'Cora' }, tags: [], image_count: 0, nsfw: false, likes: 0, collects: 0, comments: 0, views: 0, liked: false, collected: false, create_at: 1 }], next_cursor: null } });
    act(() => navigate(appStore, '/en/models?type=lora&base=sd'));
    render();
    await flush();
    const cards = $$('[data-testid="model-card"]');
    expect(cards.map((c) => c.textContent)).toEqual(['Red HarbourCora · LoRA · SD']);
    expect(calls.find((c) => c.path === '/api/v1/square/v3/model/list')?.body).toEqual({ order_by: 'new', time_type: 'all', page_size: 24, model_types: ['lora'], base_models: ['sd'] });
    expect($('[data-testid="models-type-lora"]')?.getAttribute('aria-pressed')).toBe('true');
    // Another family: the address and the call follow.
    act(() => $('[data-testid="models-base-sdxl"]')?.dispatchEvent(new MouseEvent('click', { bubbles: true })));
    await flush();
    expect(window.location.search).toBe('?type=lora&base=sd%2Csdxl');
    expect(calls.filter((c) => c.path === '/api/v1/square/v3/model/list').at(-1)?.body).toMatchObject({ base_models: ['sd', 'sdxl'] });
  });
});

describe('a model’s page', () => {
  it('shows versions as tabs, the file’s size and hashes, trigger words, the fee and use in generator', async () => {
    routes['/api/v1/model/detail'] = (b) => ((b as { model_id: string }).model_id === 'm1' ? { data: model } : { code: 40400, key: 'NotFound' });
    act(() => navigate(appStore, '/en/models/detail/m1?ver=v2'));
    render();
    await flush();
    expect($('[data-testid="model-name"]')?.textContent).toBe('Red Harbour');
    expect($$('[data-testid="model-version-tab"]').map((b) => [b.textContent, b.getAttribute('aria-selected')])).toEqual([
      ['v1.0', 'false'],
      ['v2.0', 'true'],
    ]);
    expect($('[data-testid="model-file-size"]')?.textContent).toBe('1.44 MB');
    expect($('[data-testid="model-sha256"]')?.textContent?.replaceAll(' ', '')).toBe(SHA);
    expect($('[data-testid="model-autov2"]')?.textContent).toBe('0123456789');
    expect($$('[data-testid="model-words"] code').map((c) => c.textContent)).toEqual(['ezlharbour', 'harbour']);
    expect($('[data-testid="model-fee"]')?.textContent).toBe('Each generation with this model pays its creator 3 credits.');
    expect($('[data-testid="model-use"]')?.getAttribute('href')).toBe('/en/create/image?model_ver_no=v2');
    // Downloads are not allowed: no link; not the owner: no owner actions.
    expect($('[data-testid="model-download"]')).toBeNull();
    expect($('[data-testid="model-owner-actions"]')).toBeNull();
  });

  it('lists the works made with it and its comments (obj_type 2)', async () => {
    routes['/api/v1/model/detail'] = () => ({ data: { ...model, stats: { ...model.stats, comments: 1 } } });
    routes['/api/v1/square/my-artwork/community'] = () => ({
      data: { items: [{ obj_type: 4, id: 'w1', title: 'Harbour at dusk', content_sub_type: 'picture', cover: { url: '/files/w1.png', width: 512, height: 512 }, author: { id: 'u2', name: 'Ada' }, tags: [], image_count: 1, nsfw: false, likes: 0, collects: 0, comments: 0, views: 0, liked: false, collected: false, create_at: 2 }], next_cursor: null },
    });
    routes['/api/v1/comment2/list'] = () => ({
      data: { items: [{ id: 'c1', obj_id: 'm1', obj_type: 2, content: 'Lovely red', author: { id: 'u2', name: 'Ada' }, like_count: 0, liked: false, parent_id: null, reply_to: null, reply_count: 0, replies: [], can_delete: false, create_at: 3 }], next_cursor: null, total: 1 },
    });
    act(() => navigate(appStore, '/en/models/detail/m1'));
    render();
    await flush();
    await flush();
    expect(calls.find((c) => c.path === '/api/v1/square/my-artwork/community')?.body).toEqual({ model_id: 'm1', page_size: 20, nsfw_mode: 'blur' });
    expect($('[data-testid="model-works"]')?.textContent).toContain('Made with this model');
    expect($('[data-testid="model-works"] a[href*="w1"]')).not.toBeNull();
    expect(calls.find((c) => c.path === '/api/v1/comment2/list')?.body).toMatchObject({ obj_id: 'm1', obj_type: 2 });
    expect($('[data-testid="comments"]')?.textContent).toContain('Lovely red');
  });

  it('shows the server’s key translated for a model it cannot see', async () => {
    routes['/api/v1/model/detail'] = () => ({ code: 40101, key: 'modelFilePickle' });
    act(() => navigate(appStore, '/en/models/detail/nope'));
    render();
    await flush();
    const error = $('[data-testid="models-error"]');
    expect(error?.getAttribute('data-key')).toBe('modelFilePickle');
    expect(error?.textContent).toBe('Pickle model files (.ckpt, .pt) can run code and are refused. Please upload the .safetensors version.');
  });
});
