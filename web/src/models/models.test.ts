// Unit tests of the model pages' pure parts: the upload (parts, progress,
// refusals), the wizard's state and bodies, the feed filters, sizes and
// hashes, routes, the generator's shared models, training and ranking
// readers.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { defaultConfig } from '../generator/config';
import type { ConfigContext } from '../generator/config';
import { TEST_CATALOGUE } from '../generator/testCatalogue';
import { en } from '../i18n/en';
import { zh } from '../i18n/zh';
import { listOf, MODEL_PATHS, pickerEntries, readEarnings } from './api';
import type { ConfirmedModelFile } from './api';
import { feedBody, filtersQuery, NO_MODEL_FILTERS, parseFiltersQuery, toggle } from './filters';
import { autoV2, formatBytes, groupHash, isSha256, shortHash, splitList, triggerText } from './format';
import { chooseModel, generatorPathFor, withUserModels } from './picker';
import { readBoards, readEntries } from './ranks';
import { modelsPath, parseModelsPath } from './route';
import { EMPTY_TRAIN, readEstimate, readLog, readTrainStates, totalSteps, trainBody, trainProblem, triggerFromName, isFinished } from './training';
import { partRange, percent, uploadModelFile } from './upload';
import type { UploadProgress } from './upload';
import { commitBody, createBody, edit, failed, fileProblem, formProblem, forVersionOf, initialWizard, nameFromFile, progressed, saving, startUpload, uploaded, versionCommitBody } from './wizard';

const SHA = 'a'.repeat(10) + 'b'.repeat(54);
const confirmed: ConfirmedModelFile = { file_id: 'f1', size: 4096, sha256: SHA, autov2: 'AAAAAAAAAA', detected_type: 'lora', detected_family: 'sd', rank: 4, alpha: 4, tensor_count: 6, trained_words: ['ezl_style', 'red sky'] };

describe('format', () => {
  it('formats sizes in binary units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.50 KB');
    expect(formatBytes(144 * 1024 * 1024)).toBe('144 MB');
    expect(formatBytes(6.46 * 1024 ** 3)).toBe('6.46 GB');
    expect(formatBytes(-1)).toBe('—');
  });
  it('checks, shortens and groups hashes; AutoV2 is the first 10 digits upper case', () => {
    expect(isSha256(SHA)).toBe(true);
    expect(isSha256('xyz')).toBe(false);
    expect(autoV2('abcdef0123456789')).toBe('ABCDEF0123');
    expect(shortHash(SHA)).toBe('aaaaaaaa…bbbbbbbb');
    expect(groupHash('0123456789abcdef01')).toBe('01234567 89abcdef 01');
  });
  it('joins and splits word lists', () => {
    expect(triggerText([' a ', '', 'b c'])).toBe('a, b c');
    expect(splitList('a, b,\nA , , c')).toEqual(['a', 'b', 'c']);
  });
});

describe('upload', () => {
  it('cuts parts and reports whole percents', () => {
    expect(partRange(0, 10, 25)).toEqual([0, 10]);
    expect(partRange(2, 10, 25)).toEqual([20, 25]);
    expect(percent({ sent: 1, total: 3 })).toBe(33);
    expect(percent({ sent: 5, total: 0 })).toBe(0);
  });

  it('pre-signs category 60 as octet-stream, PUTs each part with progress, confirms, and answers what the server read', async () => {
    const calls: Array<[string, unknown]> = [];
    const api = {
      post: async <T,>(path: string, body?: unknown): Promise<T> => {
        calls.push([path, body]);
        if (path === MODEL_PATHS.preSign) return { file_id: 'f1', pre_signs: ['/put/0', '/put/1'], chunk_size: 6 } as T;
        const b = body as { pre_sign_url?: string };
        if (b.pre_sign_url) return { url: null } as T;
        return { status: 0, ...confirmed } as T;
      },
    };
    const puts: Array<[string, number]> = [];
    const progress: UploadProgress[] = [];
    const file = new File([new Uint8Array(10)], 'tiny.safetensors');
    const out = await uploadModelFile(file, {
      api,
      put: async (url, body, onProgress) => {
        puts.push([url, body.size]);
        onProgress(body.size / 2);
        return 200;
      },
      onProgress: (p) => progress.push(p),
    });
    expect(calls[0]).toEqual([MODEL_PATHS.preSign, { file_size: 10, file_name: 'tiny.safetensors', content_type: 'application/octet-stream', category: 60 }]);
    expect(puts).toEqual([
      ['/put/0', 6],
      ['/put/1', 4],
    ]);
    expect(calls.map((c) => c[0])).toEqual([MODEL_PATHS.preSign, MODEL_PATHS.confirm, MODEL_PATHS.confirmPart, MODEL_PATHS.confirm]);
    expect(calls[3]?.[1]).toEqual({ file_id: 'f1' });
    const sent = progress.map((p) => p.sent);
    expect(sent).toEqual([...sent].sort((a, b) => a - b));
    expect(progress.at(-1)).toEqual({ sent: 10, total: 10, phase: 'checking' });
    expect(out.sha256).toBe(SHA);
    expect(out.detected_type).toBe('lora');
    expect(out.trained_words).toEqual(['ezl_style', 'red sky']);
  });

  it('stops on a failed PUT and passes the server refusal on', async () => {
    const api = { post: async <T,>(path: string): Promise<T> => (path === MODEL_PATHS.preSign ? ({ file_id: 'f', pre_signs: ['/p'] } as T) : ({} as T)) };
    await expect(uploadModelFile(new Blob([new Uint8Array(20)]), { api, put: async () => 500 })).rejects.toThrow('upload failed: 500');
    const refusing = {
      post: async <T,>(path: string, body?: unknown): Promise<T> => {
        if (path === MODEL_PATHS.preSign) return { file_id: 'f', pre_signs: ['/p'] } as T;
        if ((body as { pre_sign_url?: string }).pre_sign_url) return { url: null } as T;
        throw new ApiError({ code: 40101, key: 'modelFilePickle', msg: 'pickle' }, 400);
      },
    };
    await expect(uploadModelFile(new Blob([new Uint8Array(20)]), { api: refusing, put: async () => 200 })).rejects.toMatchObject({ key: 'modelFilePickle' });
    const empty = { post: async <T,>(): Promise<T> => null as T };
    await expect(uploadModelFile(new Blob([new Uint8Array(20)]), { api: empty })).rejects.toThrow('failed to get upload config');
  });
});

describe('wizard', () => {
  it('refuses non-safetensors and empty files before uploading', () => {
    expect(fileProblem('model.ckpt', 100, null)).toBe('modelFileInvalid');
    expect(fileProblem('model.safetensors', 4, null)).toBe('modelHeaderInvalid');
    expect(fileProblem('model.SAFETENSORS', 100, 50)).toBe('modelFileTooLarge');
    expect(fileProblem('model.safetensors', 100, null)).toBeNull();
    expect(nameFromFile('my_red-style__v2.safetensors')).toBe('my red style v2');
  });

  it('goes choose -> uploading -> details (prefilled from the file) -> saving -> back on failure', () => {
    let s = startUpload(initialWizard(), 'red_sky.safetensors', 4096);
    expect(s.at.step).toBe('uploading');
    s = progressed(s, { sent: 2048, total: 4096, phase: 'uploading' });
    expect(s.at.step === 'uploading' && percent(s.at.progress)).toBe(50);
    s = uploaded(s, 'red_sky.safetensors', confirmed);
    expect(s.at.step).toBe('details');
    expect(s.form).toMatchObject({ name: 'red sky', model_type: 'lora', base_model: 'sd', trained_words: 'ezl_style, red sky' });
    s = saving(edit(s, { name: 'Red Sky' }), 'create');
    expect(s.at.step).toBe('saving');
    s = failed(s, { key: 'modelTypeMismatch' });
    expect(s.at.step).toBe('details');
    expect(s.form.name).toBe('Red Sky');
    expect(s.error).toEqual({ key: 'modelTypeMismatch' });
    // A failed upload goes back to choosing.
    expect(failed(startUpload(initialWizard(), 'x.safetensors', 10), null).at.step).toBe('choose');
  });

  it('checks the form as the server does', () => {
    const s = uploaded(initialWizard(), 'a.safetensors', confirmed);
    expect(formProblem(s.form, ['sd', 'sdxl'])).toBeNull();
    expect(formProblem({ ...s.form, name: ' ' }, [])).toBe('models.form.nameInvalid');
    expect(formProblem({ ...s.form, name: 'x'.repeat(81) }, [])).toBe('models.form.nameInvalid');
    expect(formProblem({ ...s.form, base_model: 'nope' }, ['sd'])).toBe('PleaseSelectBaseName');
    expect(formProblem({ ...s.form, trained_words: Array.from({ length: 33 }, (_, i) => `w${i}`).join(',') }, [])).toBe('models.form.wordsInvalid');
    expect(formProblem({ ...s.form, is_agency_fee: true, agency_fee: 0 }, [])).toBe('agencyFeeInvalid');
    expect(formProblem({ ...s.form, is_agency_fee: true, agency_fee: 1.5 }, [])).toBe('agencyFeeInvalid');
  });

  it('builds the createModel (contract) and commitModel bodies', () => {
    const s = edit(uploaded(initialWizard(), 'a.safetensors', confirmed), { name: ' Red ', tags: 'sky, red,sky', is_agency_fee: true, agency_fee: 3 });
    expect(createBody(s.form, confirmed)).toEqual({ file_id: 'f1', name: 'Red', model_type: 'lora', base_model: 'sd', sha256: SHA, description: '', version_name: 'v1.0' });
    expect(commitBody(s.form, 'm1', 'v1', ['/i.png'])).toMatchObject({ model_id: 'm1', model_ver_no: 'v1', tags: ['sky', 'red'], trained_words: ['ezl_style', 'red sky'], is_agency_fee: true, agency_fee: 3, allow_download: true, images: ['/i.png'] });
    expect(commitBody({ ...s.form, is_agency_fee: false }, 'm1', 'v1').agency_fee).toBe(0);
  });

  it('a new version keeps the model’s name and sends only the version’s details', () => {
    const s = uploaded(forVersionOf(initialWizard(), { name: 'Red Harbour', model_type: 'lora', base_model: 'sd' }), 'other_name.safetensors', confirmed);
    expect(s.form.name).toBe('Red Harbour');
    expect(formProblem(s.form, ['sd'])).toBeNull();
    expect(versionCommitBody(edit(s, { version_name: 'v2' }).form, 'm1', 'v2n')).toEqual({ model_id: 'm1', model_ver_no: 'v2n', version_name: 'v2', trained_words: ['ezl_style', 'red sky'], images: [] });
  });
});

describe('feed filters', () => {
  it('sends only the filters that narrow, with the spec names', () => {
    expect(feedBody(NO_MODEL_FILTERS, null)).toEqual({ order_by: 'new', time_type: 'all', page_size: 24 });
    const f = toggle(toggle(NO_MODEL_FILTERS, 'model_types', 'lora'), 'base_models', 'sdxl');
    expect(feedBody(f, 'c2')).toEqual({ order_by: 'new', time_type: 'all', page_size: 24, model_types: ['lora'], base_models: ['sdxl'], cursor: 'c2' });
    expect(toggle(f, 'model_types', 'lora').model_types).toEqual([]);
  });
  it('round-trips through the address and drops unknown values', () => {
    const f = { order_by: 'hot' as const, time_type: 'week' as const, model_types: ['lora' as const, 'checkpoint' as const], base_models: ['sd', 'sdxl'] };
    expect(filtersQuery(NO_MODEL_FILTERS)).toBe('');
    expect(parseFiltersQuery(filtersQuery(f))).toEqual(f);
    expect(parseFiltersQuery('?type=lora,bogus&order=x&time=year&base=sd,<script>')).toEqual({ ...NO_MODEL_FILTERS, model_types: ['lora'], base_models: ['sd'] });
  });
});

describe('routes', () => {
  it('parses and prints the model pages', () => {
    for (const r of [{ view: 'feed' }, { view: 'new' }, { view: 'my' }, { view: 'datasets' }, { view: 'train' }, { view: 'leaderboards' }, { view: 'detail', id: 'm 1/2' }, { view: 'dataset', id: 'd1' }] as const) {
      expect(parseModelsPath(modelsPath(r))).toEqual(r);
    }
    expect(parseModelsPath('/models/')).toEqual({ view: 'feed' });
    expect(parseModelsPath('/models/a/b')).toBeNull();
    expect(parseModelsPath('/models/m1')).toBeNull();
    // The spec's link of a model card (cards/cardLink.ts).
    expect(parseModelsPath('/models/detail/a1')).toEqual({ view: 'detail', id: 'a1' });
    expect(modelsPath({ view: 'detail', id: 'a1' })).toBe('/models/detail/a1');
    expect(parseModelsPath('/modelsx')).toBeNull();
    expect(parseModelsPath('/models/detail/%E0%A4%A')).toBeNull();
  });
});

describe('shared models in the generator', () => {
  const ctx = (catalogue = TEST_CATALOGUE, studio = false): ConfigContext => ({ catalogue, studio, role: 'free', storedNIter: null });
  const entries = pickerEntries({
    items: [
      { model_id: 'm1', name: 'Red Sky', model_type: 'lora', versions: [
        { model_ver_no: 'v1', model_type: 'lora', base_model: 'flux', version_name: 'v1', status: 1, weight: 0.8, trained_words: ['ezl_red'] },
        { model_ver_no: 'v0', model_type: 'lora', base_model: 'flux', version_name: 'v0', status: 0, weight: 1, trained_words: [] },
      ] },
      { model_id: 'm2', model_ver_no: 'c1', model_type: 'checkpoint', name: 'My SD', base_model: 'sd' },
      { model_id: 'm3', model_ver_no: 'c2', model_type: 'checkpoint', name: 'Alien', base_model: 'nofamily' },
    ],
  });

  it('reads picker answers (models with versions, or entries); pending versions are left out', () => {
    expect(entries.map((e) => e.model_ver_no)).toEqual(['v1', 'c1', 'c2']);
    expect(listOf({ list: [1] })).toEqual([1]);
    expect(listOf('x')).toEqual([]);
  });

  it('adds LoRAs with their family and checkpoints shaped like their family’s', () => {
    const cat = withUserModels(TEST_CATALOGUE, entries);
    expect(cat.loras.find((l) => l.model_ver_no === 'v1')).toEqual({ model_id: 'm1', model_ver_no: 'v1', name: 'Red Sky · v1', base_model: 'flux', weight: 0.8, trained_words: ['ezl_red'] });
    const ck = cat.checkpoints.find((c) => c.model_ver_no === 'c1');
    expect(ck).toMatchObject({ family: 'sd', model_no: 'm2', is_default: false });
    expect(cat.checkpoints.some((c) => c.model_ver_no === 'c2')).toBe(false);
    expect(withUserModels(TEST_CATALOGUE, [])).toBe(TEST_CATALOGUE);
  });

  it('"use in generator" adds a LoRA on a checkpoint of its family and starts the prompt with its trigger words', () => {
    const cat = withUserModels(TEST_CATALOGUE, entries);
    const c = ctx(cat);
    const base = defaultConfig('textToImage', c);
    const next = chooseModel(base, 'v1', c);
    if (next === null) throw new Error('no config');
    expect(cat.checkpoints.find((k) => k.model_ver_no === next.modelVerNo)?.family).toBe('flux');
    expect(next.loras).toEqual([{ model_id: 'm1', model_ver_no: 'v1', name: 'Red Sky · v1', base_model: 'flux', weight: 0.8 }]);
    expect(next.prompt).toBe('ezl_red');
    // A written prompt is kept; choosing twice adds the LoRA once.
    const again = chooseModel({ ...next, prompt: 'a cat' }, 'v1', c);
    expect(again?.loras.length).toBe(1);
    expect(again?.prompt).toBe('a cat');
    expect(chooseModel(base, 'c1', c)?.modelVerNo).toBe('c1');
    expect(chooseModel(base, 'unknown', c)).toBeNull();
    expect(generatorPathFor('v 1')).toBe('/create/image?model_ver_no=v+1');
  });
});

describe('earnings, training and rankings readers', () => {
  it('reads earnings', () => {
    expect(readEarnings({ total: 7, by_model: [{ model_id: 'm', name: 'Red', credits: 7, uses: 7 }], recent: [{ model_id: 'm', credits: 1, task_id: 't' }] })).toEqual({
      total: 7,
      byModel: [{ model_id: 'm', name: 'Red', credits: 7, uses: 7 }],
      recent: [{ model_id: 'm', model_name: 'Red', credits: 1, task_id: 't' }],
    });
    expect(readEarnings(null)).toEqual({ total: 0, byModel: [], recent: [] });
    // backend/src/models/uses.rs: by_model with `earnings`, items with `ver_no`.
    const live = readEarnings({ total: 3, today: 3, by_model: [{ model_id: 'm', name: 'Red', earnings: 3, uses: 1 }], items: [{ at: 5, task_id: 't', model_id: 'm', ver_no: 'v', credits: 3, payer: 'u' }] });
    expect(live.byModel).toEqual([{ model_id: 'm', name: 'Red', credits: 3, uses: 1 }]);
    expect(live.recent).toEqual([{ at: 5, task_id: 't', model_id: 'm', model_ver_no: 'v', model_name: 'Red', credits: 3, payer: 'u' }]);
  });

  it('counts steps and checks parameters as the server does', () => {
    const f = { ...EMPTY_TRAIN, dataset_id: 'd', name: 'Red', repeats: 5, epochs: 10, batch_size: 2 };
    expect(totalSteps(9, f)).toBe(Math.ceil(45 / 2) * 10);
    expect(trainProblem(f, 9)).toBeNull();
    expect(trainProblem({ ...f, resolution: 640 }, 9)).toBe('resolution');
    expect(trainProblem({ ...f, network_alpha: 64 }, 9)).toBe('network_alpha');
    expect(trainProblem({ ...f, trigger_word: 'a,b' }, 9)).toBe('trigger_word');
    expect(trainProblem({ ...f, epochs: 100, repeats: 100 }, 200)).toBe('steps');
    expect(trainProblem({ ...f, dataset_id: '' }, 9)).toBe('dataset');
    expect(triggerFromName('My Red Style!')).toBe('my_red_style');
    expect(triggerFromName('!!')).toBe('easel_style');
    expect(trainBody(f)).toMatchObject({ dataset_id: 'd', name: 'Red', base_model: 'sd', params: { epochs: 10, repeats: 5, batch_size: 2 } });
    expect(trainBody({ ...f, model_id: 'm' })).not.toHaveProperty('name');
  });

  it('reads estimates, progress and logs', () => {
    expect(readEstimate({ credits: 12, steps: 450, estimate_secs: 210 })).toEqual({ credits: 12, steps: 450, seconds: 210 });
    const states = readTrainStates({ items: [{ task_id: 't', status: 2, process: 40 }, { task_id: 'u', status: 3, percent: 0.5 }, { task_id: 'v', status: 4, reason: 'boom' }] });
    expect(states.map((s) => [s.task_id, s.percent, isFinished(s)])).toEqual([
      ['t', 40, false],
      ['u', 50, true],
      ['v', 0, true],
    ]);
    expect(states[2]?.reason).toBe('boom');
    expect(readLog({ lines: ['a', 'b'] })).toEqual(['a', 'b']);
    expect(readLog({ log: 'a\nb' })).toEqual(['a', 'b']);
  });

  it('reads boards of cards or model summaries', () => {
    const boards = readBoards({ items: [{ rank_type: 'hottest', title: 'Hottest', items: [{ id: 'm1', title: 'Red', cover: { url: '/c.png' }, author: { name: 'Ada' }, score: 12.5 }, { model: { model_id: 'm2', name: 'Blue', cover: null, owner: { name: 'Bo' } }, rank: 2 }] }, { nope: 1 }] });
    expect(boards).toHaveLength(1);
    expect(boards[0]?.entries).toEqual([
      { rank: 1, model_id: 'm1', name: 'Red', cover: '/c.png', author: 'Ada', score: 12.5, model_type: null, base_model: null },
      { rank: 2, model_id: 'm2', name: 'Blue', cover: null, author: 'Bo', score: null, model_type: null, base_model: null },
    ]);
    expect(readEntries([{ x: 1 }])).toEqual([]);
    // rank-index (backend/src/routes/model_leaderboard.rs): {time_type, boards: [BoardPage {rank_type, title, items: [RankedModel]}]}.
    const index = readBoards({ time_type: 'week', boards: [{ rank_type: 'most_used', title: 'Most used', items: [{ rank: 1, value: 4, score: 4, model: { model_id: 'm9', name: 'Nine', base_model: 'sd', base_model_name: 'SD 1.5', model_type: 'lora', owner: { name: 'Cy' }, cover: null } }] }] });
    expect(index.map((b) => [b.rank_type, b.title, b.entries[0]?.name, b.entries[0]?.base_model, b.entries[0]?.score])).toEqual([['most_used', 'Most used', 'Nine', 'SD 1.5', 4]]);
  });
});

describe('strings', () => {
  it('has a message for every model, dataset and training error key of issue 19, in English and Chinese', () => {
    const keys = ['modelFileInvalid', 'modelFilePickle', 'modelHeaderInvalid', 'modelHashMismatch', 'modelFileTooLarge', 'modelFieldInvalid', 'modelTypeMismatch', 'modelVersionInUse', 'modelImportRefused', 'agencyFeeInvalid', 'modelNotReady', 'datasetEmpty', 'datasetTooLarge', 'trainParamsInvalid', 'trainerUnavailable'] as const;
    for (const k of keys) {
      expect(en[k].length, k).toBeGreaterThan(0);
      expect(zh[k], k).not.toBe(en[k]);
    }
  });
});
