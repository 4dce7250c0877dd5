import { describe, expect, it } from 'vitest';
import {
  absoluteUrl,
  defaultCheckpoint,
  dispositionName,
  expandCall,
  extraUpscaleCall,
  extraUpscaleRatio,
  marginsValid,
  removeBackgroundCall,
  sourceImages,
  upscaleCall,
  variationCall,
} from './requests';
import { makeTask } from './testTask';

const done = makeTask({
  id: 't1',
  status: 3,
  process: 100,
  category: 11,
  img_uris: ['/files/a.png', '/files/b.png'],
  outputs: [
    { url: '/files/a.png', mime: 'image/png', width: 640, height: 480, seed: 1 },
    { url: '/files/b.png', mime: 'image/png', width: 480, height: 640, seed: 2 },
  ],
});
const [a] = sourceImages(done);
if (!a) throw new Error('no image');

describe('action requests', () => {
  it('reads each image with its own size', () => {
    expect(sourceImages(done)).toEqual([
      { url: '/files/a.png', width: 640, height: 480 },
      { url: '/files/b.png', width: 480, height: 640 },
    ]);
    expect(sourceImages(makeTask({ id: 'x', img_uris: ['/u'], width: 300, height: 200 }))).toEqual([
      { url: '/u', width: 300, height: 200 },
    ]);
  });

  it('upscale sends the image URL and size, ratio 2', () => {
    expect(upscaleCall(done, a)).toEqual({
      path: '/api/v1/task/v2/upscale',
      body: { parent_task_id: 't1', meta: { imageUrl: '/files/a.png', width: 640, height: 480, scaling_ratio: 2 } },
    });
  });

  it('extra upscale is action 6 with a ratio that fits 4096', () => {
    expect(extraUpscaleRatio({ width: 640, height: 480 })).toBe(4);
    expect(extraUpscaleRatio({ width: 2048, height: 100 })).toBe(2);
    expect(extraUpscaleRatio({ width: 5000, height: 100 })).toBe(1);
    expect(extraUpscaleCall(done, a).body).toMatchObject({ action: 6, meta: { scaling_ratio: 4 } });
  });

  it('variation and expansion name the default checkpoint of the task mode', () => {
    const cps = [
      { model_ver_no: 'sd', category: 1, is_default: true },
      { model_ver_no: 'studio', category: 7, is_default: true },
      { model_ver_no: 'studio-2', category: 7, is_default: false },
    ];
    expect(defaultCheckpoint(cps, 11)).toBe('studio');
    expect(defaultCheckpoint(cps, 3)).toBe('sd');
    expect(defaultCheckpoint(cps, 5)).toBeNull();
    expect(variationCall(done, a, 'studio')).toEqual({
      path: '/api/v1/task/v2/make-variation',
      body: {
        parent_task_id: 't1',
        category: 7,
        art_model_ver_no: 'studio',
        meta: { imageUrl: '/files/a.png', width: 640, height: 480, prompt: 'a red fox', n_iter: 1 },
      },
    });
  });

  it('expansion is action 13 with the canvas and margins', () => {
    const call = expandCall(done, a, { left: 10, right: 20, top: 30, bottom: 40 }, 'studio');
    expect(call.path).toBe('/api/v1/task/create');
    expect(call.body).toMatchObject({
      action: 13,
      meta: {
        imgFiles: [{ url: '/files/a.png', width: 640, height: 480 }],
        width: 670,
        height: 550,
        left_margin: 10,
        up_margin: 30,
        prompt: 'a red fox',
      },
    });
    expect(marginsValid(a, { left: 0, right: 0, top: 0, bottom: 0 })).toBe(false);
    expect(marginsValid(a, { left: 1.5, right: 0, top: 0, bottom: 0 })).toBe(false);
    expect(marginsValid(a, { left: 4000, right: 0, top: 0, bottom: 0 })).toBe(false);
    expect(marginsValid(a, { left: 8, right: 0, top: 0, bottom: 0 })).toBe(true);
  });

  it('remove background is action 7', () => {
    expect(removeBackgroundCall(done, a).body).toMatchObject({ action: 7, meta: { imageUrl: '/files/a.png' } });
  });

  it('shares absolute URLs and names downloads from the answer', () => {
    expect(absoluteUrl('/files/a.png', 'http://h:1')).toBe('http://h:1/files/a.png');
    expect(dispositionName('attachment; filename="easel-1.png"', 'x')).toBe('easel-1.png');
    expect(dispositionName(null, 'x')).toBe('x');
  });
});
