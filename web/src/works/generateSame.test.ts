import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../generator/config';
import { TEST_CATALOGUE } from '../generator/testCatalogue';
import type { GenParams } from '../square/types';
import { configFromParams } from './generateSame';

const PARAMS: GenParams = {
  prompt: 'a lighthouse at dusk',
  negative_prompt: 'blurry',
  model: 'dreamshaper-8',
  model_name: 'DreamShaper 8',
  seed: 11,
  width: 512,
  height: 768,
  steps: 8,
  cfg_scale: 6.5,
  sampler: 'Euler a',
  action: 1,
  engine: 'Easel reference engine (non-neural)',
  neural: false,
};

const ctx = { catalogue: TEST_CATALOGUE, studio: false, role: 'paid' as const, storedNIter: null };

describe('"Generate the same"', () => {
  it('puts the work\'s parameters into a checkpoint tab', () => {
    const base = defaultConfig('textToImage', ctx);
    const c = configFromParams(base, PARAMS, 'textToImage', TEST_CATALOGUE);
    expect(c).toMatchObject({ prompt: 'a lighthouse at dusk', negative: 'blurry', width: 512, height: 768, seed: '11', steps: 8, cfg: 6.5, sampler: 'Euler a', modelVerNo: 'dreamshaper-8' });
    // What a work does not record stays as the tab had it.
    expect(c.nIter).toBe(base.nIter);
    expect(c.loras).toEqual(base.loras);
  });

  it('keeps the tab\'s checkpoint when the catalogue does not have the work\'s, and the starter tab\'s look', () => {
    const base = defaultConfig('textToImage', ctx);
    expect(configFromParams(base, { ...PARAMS, model: 'gone' }, 'textToImage', TEST_CATALOGUE).modelVerNo).toBe(base.modelVerNo);
    const starter = defaultConfig('SIMPLE', ctx);
    const s = configFromParams(starter, PARAMS, 'SIMPLE', TEST_CATALOGUE);
    expect(s.modelVerNo).toBe(starter.modelVerNo);
    expect(s.artWorkNo).toBe(starter.artWorkNo);
    expect(s.prompt).toBe('a lighthouse at dusk');
  });

  it('leaves out empty values', () => {
    const base = defaultConfig('textToImage', ctx);
    const c = configFromParams(base, { ...PARAMS, negative_prompt: '', width: 0, height: 0, steps: 0, cfg_scale: 0, sampler: '', seed: -1 }, 'textToImage', TEST_CATALOGUE);
    expect(c).toMatchObject({ negative: base.negative, width: base.width, height: base.height, steps: base.steps, cfg: base.cfg, sampler: base.sampler, seed: base.seed });
  });
});
