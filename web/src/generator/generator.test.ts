import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client';
import type { ApiClient } from '../api/client';
import { loginDialogAtom, tokenAtom } from '../account/atoms';
import { createAppStore } from '../state/jotai';
import { generatingAtom, paymentInfoAtom, popupsAtom, problemAtom } from './atoms';
import { aspectMatches, aspectSize, checkSize, matchAspect, STUDIO_LIMITS } from './catalogue';
import { buildRequest, defaultConfig, generationDefaults, seedValue, withCheckpoint } from './config';
import type { ConfigContext, ImageInput, TabConfig } from './config';
import { generate } from './generate';
import { hasPaint, maskFromPaint, maskSize, toMaskPoint } from './mask';
import { canOpenTab, defaultNIter, loraLimitExceeded, mayAddLora, roleOf } from './roles';
import type { Role } from './roles';
import { parseNIter, parsePopups, serializePopups } from './storage';
import { callPath, STARTER_TAB, TAB_ACTION, tabOfAction, TABS, workspaceRoute } from './tabs';
import type { TabId } from './tabs';
import { TEST_CATALOGUE as catalogue } from './testCatalogue';
import { uploadFile } from './upload';
import { isUploadedUrl, validate } from './validate';

const ctx = (role: Role = 'free', studio = false): ConfigContext => ({ catalogue, studio, role, storedNIter: null });
const img = (w = 512, h = 768, url = 'http://127.0.0.1:8080/files/u/a/in.png'): ImageInput => ({ url, width: w, height: h, name: 'in.png' });
const v = (tab: TabId, c: TabConfig, role: Role = 'free', studio = false, uploading = false) =>
  validate(tab, c, { catalogue, studio, role, uploading });

describe('tabs and actions', () => {
  it('maps the twelve tabs to the action codes of spec 1 §4', () => {
    expect(TABS).toHaveLength(12);
    expect(TAB_ACTION).toEqual({
      SIMPLE: 1,
      textToImage: 1,
      imageToImage: 9,
      conditionToImage: 10,
      extraUpscale: 6,
      descriptors: 8,
      preview: 12,
      promptStudio: 1,
      expansion: 13,
      faceSwap: 22,
      animGen: 24,
      characterRepair: 25,
    });
  });

  it('maps actions back to tabs', () => {
    for (const tab of TABS.filter((t) => t !== 'SIMPLE' && t !== 'promptStudio')) {
      expect(tabOfAction(TAB_ACTION[tab])).toBe(tab);
    }
    expect(tabOfAction(2)).toBe('extraUpscale');
    expect(tabOfAction(3)).toBe('imageToImage');
    expect(tabOfAction(4)).toBeNull();
  });

  it('posts to the right call', () => {
    expect(callPath('SIMPLE')).toBe('/api/v1/task/v2/text-to-img');
    expect(callPath('textToImage')).toBe('/api/v1/task/v2/text-to-img');
    expect(callPath('imageToImage')).toBe('/api/v1/task/v2/img-to-img');
    expect(callPath('conditionToImage')).toBe('/api/v1/task/v2/controlNet-to-img');
    expect(callPath('descriptors')).toBe('/api/v1/task/v2/img-to-text');
    for (const tab of ['extraUpscale', 'preview', 'expansion', 'faceSwap', 'animGen', 'characterRepair'] as const) {
      expect(callPath(tab)).toBe('/api/v1/task/create');
    }
  });

  it('maps workspace routes', () => {
    expect(workspaceRoute('/create')).toEqual({ kind: 'image', studio: false });
    expect(workspaceRoute('/studio')).toEqual({ kind: 'image', studio: true });
    expect(workspaceRoute('/create/image')).toEqual({ kind: 'image', studio: false });
    expect(workspaceRoute('/create/video')).toEqual({ kind: 'video' });
    expect(workspaceRoute('/create/audio')).toEqual({ kind: 'audio' });
    expect(workspaceRoute('/create/ai-app')).toEqual({ kind: 'unavailable', group: 'app' });
    expect(workspaceRoute('/create/element')).toEqual({ kind: 'unavailable', group: 'multiImage' });
    expect(workspaceRoute('/create/effect')).toEqual({ kind: 'unavailable', group: 'effect' });
    expect(workspaceRoute('/create/nope')).toEqual({ kind: 'unknown', value: 'nope' });
  });
});

describe('aspect matching (spec 1 §5) and sizes (spec 3 §9)', () => {
  it('matches within 5', () => {
    expect(aspectMatches(768, 432, 16, 9)).toBe(true);
    expect(aspectMatches(624, 936, 2, 3)).toBe(true);
    // 688/2 = 344, 1024/3 = 341.3: within 5.
    expect(aspectMatches(688, 1024, 2, 3)).toBe(true);
    expect(aspectMatches(700, 1024, 2, 3)).toBe(false);
    expect(aspectMatches(100, 100, 0, 1)).toBe(false);
  });

  it('selects the first matching option, else custom', () => {
    expect(matchAspect(1024, 1024, catalogue.aspects)).toBe(2);
    expect(matchAspect(1440, 810, catalogue.aspects)).toBe(12);
    expect(matchAspect(832, 1248, catalogue.aspects)).toBe(1);
    // 832/2 = 416 and 1216/3 = 405.3: 10.7 apart, so the SDXL default is custom.
    expect(matchAspect(832, 1216, catalogue.aspects)).toBe(5);
    expect(matchAspect(1000, 300, catalogue.aspects)).toBe(5);
  });

  it('serves the spec example sizes', () => {
    expect(aspectSize(catalogue, 2, 'sd', false)).toEqual({ width: 768, height: 768 });
    expect(aspectSize(catalogue, 2, 'flux', true)).toEqual({ width: 1536, height: 1536 });
    expect(aspectSize(catalogue, 12, 'sdxl', false)).toEqual({ width: 1440, height: 810 });
    expect(aspectSize(catalogue, 14, 'sdxl', false)).toBeNull();
  });

  it('checks sizes like the server', () => {
    const sd = catalogue.families.find((f) => f.id === 'sd')!.limits;
    expect(checkSize(512, 768, sd)).toBeNull();
    expect(checkSize(256, 768, sd)).toBe('ImageSizeTooSmall');
    expect(checkSize(512, 1100, sd)).toBe('ImageSizeTooLarge');
    expect(checkSize(768, 1536, STUDIO_LIMITS)).toBeNull();
    expect(checkSize(1536, 768, STUDIO_LIMITS)).toBeNull();
    expect(checkSize(1536, 760, STUDIO_LIMITS)).toBe('ImageSizeTooSmall');
    expect(checkSize(1000, 1000, { ...sd, ratio_min: 1.2 })).toBe('ImageRatioInvalid');
  });
});

describe('defaults per category (spec 1 §9)', () => {
  it('normal, sdxl, flux and studio', () => {
    expect(generationDefaults(catalogue, 1, 'sd')).toMatchObject({ cfg_scale: 7, steps: 20, sampler: 'DPM++ 2M Karras', width: 624, height: 936 });
    expect(generationDefaults(catalogue, 5, 'sdxl')).toMatchObject({ cfg_scale: 7, steps: 30, width: 832, height: 1216 });
    expect(generationDefaults(catalogue, 5, 'sdxl')?.negative_prompt).toMatch(/worst quality/);
    expect(generationDefaults(catalogue, 1, 'flux')).toMatchObject({ cfg_scale: 3.5, sampler: 'Euler', width: 688, height: 1024 });
    expect(generationDefaults(catalogue, 7, 'sdxl')).toMatchObject({ cfg_scale: 6, steps: 30, denoising_strength: 0.5, width: 832, height: 1216 });
    expect(generationDefaults(catalogue, 11, 'il')).toMatchObject({ category: 7 });
  });

  it('a tab starts with the mode default checkpoint and the role image count', () => {
    const t2i = defaultConfig('textToImage', ctx('free'));
    expect(t2i).toMatchObject({ modelVerNo: 'sd15-v1', width: 624, height: 936, steps: 20, cfg: 7, seed: '', nIter: 2, denoising: 0.35 });
    expect(t2i.upScaler).toBe('4x-UltraSharp');
    expect(defaultConfig('textToImage', ctx('paid')).nIter).toBe(4);
    expect(defaultConfig('textToImage', { ...ctx('free'), storedNIter: 3 }).nIter).toBe(3);
    const studio = defaultConfig('textToImage', ctx('paid', true));
    expect(studio).toMatchObject({ modelVerNo: 'studio-enhance-xl-1', width: 832, height: 1216, steps: 30, cfg: 6 });
    const starter = defaultConfig('SIMPLE', ctx('visitor'));
    expect(starter).toMatchObject({ artWorkNo: 'starter-portrait', modelVerNo: '', nIter: 1 });
  });

  it('switching checkpoints takes the family defaults and drops LoRAs of other families', () => {
    let c = defaultConfig('textToImage', ctx());
    c = { ...c, loras: [{ model_id: 'detail-tweaker', model_ver_no: 'detail-tweaker-1', name: 'x', base_model: 'sd', weight: 1 }] };
    const flux = withCheckpoint(c, 'flux-dev-1', ctx());
    expect(flux).toMatchObject({ modelVerNo: 'flux-dev-1', cfg: 3.5, sampler: 'Euler', width: 688, height: 1024, loras: [] });
    const sdxl = withCheckpoint(c, 'sdxl-base-1.0', ctx());
    expect(sdxl.steps).toBe(30);
    expect(sdxl.negative).toMatch(/worst quality/);
    expect(withCheckpoint(sdxl, 'sd15-v1', ctx()).negative).toBe('');
  });

  it('seeds: empty and -1 mean random', () => {
    expect(seedValue('')).toBe(-1);
    expect(seedValue(' -1 ')).toBe(-1);
    expect(seedValue('42')).toBe(42);
    expect(seedValue('4.5')).toBe(-1);
  });
});

describe('requests', () => {
  it('text to image carries model, size, sampler settings and LoRAs', () => {
    const c = { ...defaultConfig('textToImage', ctx()), prompt: ' a cat ' };
    const body = buildRequest('textToImage', c, ctx());
    expect(body).toMatchObject({ action: 1, category: 1, art_model_ver_no: 'sd15-v1' });
    expect(body.meta).toMatchObject({ prompt: 'a cat', width: 624, height: 936, n_iter: 2, seed: -1, steps: 20, cfg_scale: 7, lora_models: [] });
  });

  it('the starter tab sends its artwork; visitors g_mode 1', () => {
    const body = buildRequest('SIMPLE', { ...defaultConfig('SIMPLE', ctx('visitor')), prompt: 'x' }, ctx('visitor'));
    expect(body).toMatchObject({ action: 1, art_work_no: 'starter-portrait', g_mode: 1 });
    expect(body.art_model_ver_no).toBeUndefined();
    expect(body.meta.lora_models).toBeUndefined();
  });

  it('image tabs carry their inputs', () => {
    const base = defaultConfig('imageToImage', ctx());
    const i2i = buildRequest('imageToImage', { ...base, image: img(), mask: '/files/u/m/mask.png' }, ctx());
    expect(i2i.meta).toMatchObject({ imageUrl: img().url, mask: '/files/u/m/mask.png', imgFiles: [{ url: img().url, width: 512, height: 768 }] });
    const cn = buildRequest('conditionToImage', { ...base, control: { module: 'depth', weight: 0.8, guidance_end: 0.6, image: img() } }, ctx());
    expect(cn.meta.controlnet_units).toEqual([
      expect.objectContaining({ module: 'depth', weight: 0.8, guidance_end: 0.6, input_image: img().url }),
    ]);
    const fs = buildRequest('faceSwap', { ...base, image: img(), faceSource: img(1, 1, '/files/u/f/face.png') }, ctx());
    expect(fs.meta.exchange_face).toEqual({ target_uri: img().url, source_uri: '/files/u/f/face.png', face_distance: 1.5 });
    const up = buildRequest('extraUpscale', { ...base, image: img(), scalingRatio: 3 }, ctx());
    expect(up).toMatchObject({ action: 6, meta: { scaling_ratio: 3, up_scaler: '4x-UltraSharp', imageUrl: img().url } });
    const anim = buildRequest('animGen', { ...base, image: img(), frames: 24 }, ctx());
    expect(anim.meta.animatediff).toEqual({ frames: 24 });
    const exp = buildRequest('expansion', { ...base, prompt: 'p', image: img(), width: 768, height: 1152, leftMargin: 128, upMargin: 192 }, ctx());
    expect(exp.meta).toMatchObject({ width: 768, height: 1152, left_margin: 128, up_margin: 192 });
  });
});

describe('validation table (spec 1 §5, same keys as the server)', () => {
  const t2i = () => ({ ...defaultConfig('textToImage', ctx()), prompt: 'a cat' });
  const lora = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ model_id: `l${i}`, model_ver_no: `l${i}`, name: `L${i}`, base_model: 'sd', weight: 1 }));
  const rows: [string, TabId, TabConfig, Role, string | null][] = [
    ['ok', 'textToImage', t2i(), 'free', null],
    ['visitor on another tab', 'textToImage', t2i(), 'visitor', 'NeedLogin'],
    ['visitor on the starter', 'SIMPLE', { ...defaultConfig('SIMPLE', ctx('visitor')), prompt: 'a cat' }, 'visitor', null],
    ['empty prompt', 'textToImage', { ...t2i(), prompt: '  ' }, 'free', 'PromptNotEmpty'],
    ['empty starter prompt', 'SIMPLE', defaultConfig('SIMPLE', ctx('visitor')), 'visitor', 'PromptNotEmpty'],
    ['no model', 'textToImage', { ...t2i(), modelVerNo: '' }, 'free', 'PleaseSelectBaseName'],
    ['four LoRAs, free', 'textToImage', { ...t2i(), loras: lora(4) }, 'free', 'LoRALimit5TipWeb'],
    ['four LoRAs, paid', 'textToImage', { ...t2i(), loras: lora(4) }, 'paid', null],
    ['three LoRAs, free', 'textToImage', { ...t2i(), loras: lora(3) }, 'free', null],
    ['no image (i2i)', 'imageToImage', t2i(), 'free', 'pleaseUoloadImage'],
    ['no image (animation)', 'animGen', t2i(), 'free', 'pleaseSelectImage'],
    ['one face only', 'faceSwap', { ...t2i(), image: img() }, 'free', 'pleaseUoloadImage'],
    ['no condition image', 'conditionToImage', t2i(), 'free', 'pleaseUoloadImage'],
    ['upscale over 4096', 'extraUpscale', { ...t2i(), image: img(1500, 1000), scalingRatio: 3 }, 'free', 'ImageSizeExceedsError'],
    ['upscale at 4096', 'extraUpscale', { ...t2i(), image: img(2048, 1024), scalingRatio: 2 }, 'free', null],
    ['mask not uploaded', 'imageToImage', { ...t2i(), image: img(), mask: 'local:mask' }, 'free', 'uploadError'],
    ['image not uploaded', 'descriptors', { ...t2i(), image: img(10, 10, 'blob:x') }, 'free', 'uploadError'],
    ['too small', 'textToImage', { ...t2i(), width: 256, height: 256 }, 'free', 'ImageSizeTooSmall'],
    ['too large', 'textToImage', { ...t2i(), width: 1536, height: 1536 }, 'free', 'ImageSizeTooLarge'],
    ['expansion canvas over 4096', 'expansion', { ...t2i(), image: img(), width: 5000, height: 800 }, 'free', 'ImageSizeExceedsError'],
  ];
  it.each(rows)('%s', (_name, tab, config, role, key) => {
    expect(v(tab, config, role)?.key ?? null).toBe(key);
  });

  it('an upload in progress waits (uploadingWaitTip)', () => {
    expect(v('textToImage', t2i(), 'free', false, true)?.key).toBe('uploadingWaitTip');
  });

  it('studio: LoRAs of another family need LoRA-ignore (studio25); a condition image exempts the prompt', () => {
    const s = { ...defaultConfig('textToImage', ctx('paid', true)), prompt: 'x', loras: lora(1) };
    expect(v('textToImage', s, 'paid', true)?.key).toBe('studio25');
    expect(v('textToImage', { ...s, loraIgnore: true }, 'paid', true)).toBeNull();
    const cond = { ...defaultConfig('conditionToImage', ctx('paid', true)), control: { module: 'canny', weight: 1, guidance_end: 1, image: img() } };
    expect(v('conditionToImage', cond, 'paid', true)).toBeNull();
    expect(v('conditionToImage', cond, 'paid', false)?.key).toBe('PromptNotEmpty');
  });

  it('uploaded URLs', () => {
    expect(isUploadedUrl('https://cdn.example.com/a.png')).toBe(true);
    expect(isUploadedUrl('/files/u/1/a.png')).toBe(true);
    expect(isUploadedUrl('/files/../etc')).toBe(false);
    expect(isUploadedUrl('data:image/png;base64,xx')).toBe(false);
    expect(isUploadedUrl('http://@evil/a')).toBe(false);
    expect(isUploadedUrl('')).toBe(false);
  });
});

describe('role gating (spec 1 §6)', () => {
  const pay = (activeState: boolean, liteActiveState: boolean) => ({ activeState, liteActiveState, infiniteQueue: false, productLevel: 0 });
  it('roles from token and payment info', () => {
    expect(roleOf(null, pay(true, false))).toBe('visitor');
    expect(roleOf('t', null)).toBe('free');
    expect(roleOf('t', pay(false, false))).toBe('free');
    expect(roleOf('t', pay(true, false))).toBe('paid');
    expect(roleOf('t', pay(false, true))).toBe('paid');
  });

  it('visitors have only the starter tab', () => {
    for (const tab of TABS) {
      expect(canOpenTab('visitor', tab)).toBe(tab === STARTER_TAB);
      expect(canOpenTab('free', tab)).toBe(true);
    }
  });

  it('free users may use three LoRAs; paid users any number', () => {
    expect(mayAddLora('free', 2)).toBe(true);
    expect(mayAddLora('free', 3)).toBe(false);
    expect(loraLimitExceeded('free', 4)).toBe(true);
    expect(loraLimitExceeded('paid', 40)).toBe(false);
  });

  it('image count defaults: visitor 1, free stored or 2 (SD 3.5: 4), paid 4', () => {
    expect(defaultNIter('visitor', 'sd', 3)).toBe(1);
    expect(defaultNIter('free', 'sd', null)).toBe(2);
    expect(defaultNIter('free', 'sd', 3)).toBe(3);
    expect(defaultNIter('free', 'sd', 9)).toBe(2);
    expect(defaultNIter('free', 'sd3.5', null)).toBe(4);
    expect(defaultNIter('paid', 'sd', 1)).toBe(4);
  });
});

describe('mask', () => {
  it('painted pixels become transparent, the rest opaque', () => {
    // 3 pixels: painted, not painted, half-painted (antialiased edge).
    const paint = new Uint8ClampedArray([91, 76, 240, 255, 0, 0, 0, 0, 91, 76, 240, 128]);
    expect(Array.from(maskFromPaint(paint))).toEqual([0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 0, 0]);
    expect(hasPaint(paint)).toBe(true);
    expect(hasPaint(new Uint8ClampedArray(8))).toBe(false);
  });

  it('has the image size, at most 4096 a side', () => {
    expect(maskSize(1024, 768)).toEqual({ width: 1024, height: 768 });
    expect(maskSize(8192, 4096)).toEqual({ width: 4096, height: 2048 });
    expect(maskSize(3000, 6000)).toEqual({ width: 2048, height: 4096 });
  });

  it('maps pointer positions to mask pixels', () => {
    const rect = { left: 10, top: 20, width: 200, height: 100 };
    expect(toMaskPoint(110, 70, rect, { width: 1000, height: 500 })).toEqual({ x: 500, y: 250 });
    expect(toMaskPoint(0, 500, rect, { width: 1000, height: 500 })).toEqual({ x: 0, y: 500 });
  });
});

describe('storage', () => {
  it('popups: only the control-net popup is restored', () => {
    expect(parsePopups(serializePopups({ controlNet: true, loraLimit: true }))).toEqual({ controlNet: true, loraLimit: false });
    expect(parsePopups('{bad')).toEqual({ controlNet: false, loraLimit: false });
    expect(parseNIter('3')).toBe(3);
    expect(parseNIter('7')).toBeNull();
  });
});

describe('upload', () => {
  it('pre-sign, PUT each part with progress, confirm each part, confirm the file', async () => {
    const calls: [string, unknown][] = [];
    const api = {
      post: vi.fn(async (path: string, body?: unknown) => {
        calls.push([path, body]);
        if (path.endsWith('/pre-sign/get')) return { file_id: 'f1', pre_signs: ['http://h/p0?t=a', 'http://h/p1?t=b'], chunk_size: 6 };
        if ((body as { pre_sign_url?: string }).pre_sign_url) return { url: 'http://h/files/u/f1/x.png' };
        return { status: 0, url: 'http://h/files/u/f1/x.png' };
      }),
    } as unknown as Parameters<typeof uploadFile>[0]['api'];
    const puts: [string, number][] = [];
    const progress: number[] = [];
    let failOnce = true;
    const url = await uploadFile({
      api,
      file: new Blob(['0123456789'], { type: 'image/png' }),
      fileName: 'x.png',
      category: 1,
      onProgress: (f) => progress.push(f),
      sleep: async () => {},
      put: async (u, body, onProgress) => {
        if (failOnce) {
          failOnce = false;
          throw new Error('network');
        }
        puts.push([u, body.size]);
        onProgress(body.size);
      },
    });
    expect(url).toBe('http://h/files/u/f1/x.png');
    expect(puts).toEqual([
      ['http://h/p0?t=a', 6],
      ['http://h/p1?t=b', 4],
    ]);
    expect(calls[0]).toEqual(['/api/v1/resource/pre-sign/get', { file_size: 10, file_name: 'x.png', content_type: 'image/png', category: 1 }]);
    expect(calls.slice(1).map((c) => c[1])).toEqual([
      { file_id: 'f1', pre_sign_url: 'http://h/p0?t=a' },
      { file_id: 'f1', pre_sign_url: 'http://h/p1?t=b' },
      { file_id: 'f1' },
    ]);
    expect(progress.at(-1)).toBe(1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });
});

describe('generate', () => {
  function setup(role: Role) {
    const store = createAppStore();
    if (role !== 'visitor') store.set(tokenAtom, 'tok');
    if (role === 'paid') store.set(paymentInfoAtom, { token: 'tok', info: { activeState: true, liteActiveState: false, infiniteQueue: false, productLevel: 1 } });
    return store;
  }

  it('shows the check instead of sending, and opens dialogs', async () => {
    const store = setup('free');
    const api = { post: vi.fn() };
    const config = defaultConfig('textToImage', ctx());
    const onCreated = vi.fn();
    expect(await generate({ store, api, catalogue, studio: false, tab: 'textToImage', config, onCreated })).toBeNull();
    expect(store.get(problemAtom)?.key).toBe('PromptNotEmpty');
    const four = { ...config, prompt: 'x', loras: Array.from({ length: 4 }, (_, i) => ({ model_id: `${i}`, model_ver_no: `${i}`, name: '', base_model: 'sd', weight: 1 })) };
    await generate({ store, api, catalogue, studio: false, tab: 'textToImage', config: four, onCreated });
    expect(store.get(popupsAtom).loraLimit).toBe(true);
    expect(api.post).not.toHaveBeenCalled();

    const visitor = setup('visitor');
    await generate({ store: visitor, api, catalogue, studio: false, tab: 'textToImage', config: { ...config, prompt: 'x' }, onCreated });
    expect(visitor.get(loginDialogAtom)).toEqual({ open: true, step: 'login' });
  });

  it('posts once while generating, hands the id over, shows server keys', async () => {
    const store = setup('free');
    let release: (v: { id: string }) => void = () => {};
    const post = vi.fn(() => new Promise<{ id: string }>((r) => (release = r)));
    const api = { post } as unknown as Pick<ApiClient, 'post'>;
    const config = { ...defaultConfig('textToImage', ctx()), prompt: 'x' };
    const onCreated = vi.fn();
    const first = generate({ store, api, catalogue, studio: false, tab: 'textToImage', config, onCreated });
    expect(store.get(generatingAtom)).toBe(true);
    expect(await generate({ store, api, catalogue, studio: false, tab: 'textToImage', config, onCreated })).toBeNull();
    release({ id: 'task-1' });
    expect(await first).toBe('task-1');
    expect(post).toHaveBeenCalledTimes(1);
    expect(post).toHaveBeenCalledWith('/api/v1/task/v2/text-to-img', expect.objectContaining({ action: 1 }));
    expect(onCreated).toHaveBeenCalledWith('task-1');
    expect(store.get(generatingAtom)).toBe(false);

    const failing = {
      post: vi.fn(async () => Promise.reject(new ApiError({ code: 40200, key: 'CoinsNotEnough', msg: 'no' }, 402))),
    } as unknown as Pick<ApiClient, 'post'>;
    expect(await generate({ store, api: failing, catalogue, studio: false, tab: 'textToImage', config, onCreated })).toBeNull();
    expect(store.get(problemAtom)).toEqual({ show: 'server', key: 'CoinsNotEnough', text: 'no' });
    expect(store.get(generatingAtom)).toBe(false);
  });
});
