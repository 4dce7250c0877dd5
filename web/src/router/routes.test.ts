import { describe, expect, it } from 'vitest';
import {
  closeGeneratorAction,
  GENERATE_TYPES,
  generateTabOf,
  generateTypeOfTab,
  generatorPath,
  isHomePath,
  landingRedirect,
  parseGeneratorRoute,
} from './routes';

describe('generateType -> tab (spec 1 §2)', () => {
  it.each([
    ['image', 'generateImage'],
    ['effect', 'effect'],
    ['video', 'generateVideo'],
    ['ai-app', 'app'],
    ['audio', 'generateAudio'],
    ['element', 'multiImage'],
  ])('%s opens %s', (type, tab) => {
    expect(generateTabOf(type)).toBe(tab);
    expect(generateTypeOfTab(tab)).toBe(type);
  });

  it('knows exactly six types and no others', () => {
    expect(GENERATE_TYPES).toHaveLength(6);
    for (const unknown of ['', 'Image', 'text', 'ai_app', 'generateImage']) expect(generateTabOf(unknown)).toBeNull();
    expect(generateTypeOfTab('textToImage')).toBeNull();
  });
});

describe('parseGeneratorRoute', () => {
  it('reads /create as the modal route', () => {
    expect(parseGeneratorRoute('/create')).toEqual({ mode: 'modal', generateType: null, tab: null, id: null, modelVerNo: null });
    expect(parseGeneratorRoute('/create/')?.mode).toBe('modal');
  });

  it('reads /studio', () => {
    expect(parseGeneratorRoute('/studio', '?id=7')).toEqual({ mode: 'studio', generateType: null, tab: null, id: '7', modelVerNo: null });
  });

  it('reads /create/{generateType} with id and model_ver_no', () => {
    expect(parseGeneratorRoute('/create/video', '?id=abc&model_ver_no=v-12&x=1')).toEqual({
      mode: 'page',
      generateType: 'video',
      tab: 'generateVideo',
      id: 'abc',
      modelVerNo: 'v-12',
    });
    expect(parseGeneratorRoute('/create/ai-app', 'model_ver_no=9')).toMatchObject({ tab: 'app', id: null, modelVerNo: '9' });
  });

  it('treats blank query values as absent', () => {
    expect(parseGeneratorRoute('/create/image', '?id=%20&model_ver_no=')).toMatchObject({ id: null, modelVerNo: null });
  });

  it('is null for other paths and unknown types', () => {
    for (const path of ['/', '/created', '/create/unknown', '/create/image/extra', '/studio/x', '/explore/detail/1']) {
      expect(parseGeneratorRoute(path), path).toBeNull();
    }
  });

  it('builds paths back', () => {
    expect(generatorPath({ mode: 'page', generateType: 'audio', id: '1', modelVerNo: 'm 2' })).toBe('/create/audio?id=1&model_ver_no=m+2');
    expect(generatorPath({ mode: 'modal', generateType: null, id: null, modelVerNo: null })).toBe('/create');
    expect(generatorPath({ mode: 'studio', generateType: null, id: null, modelVerNo: null })).toBe('/studio');
  });
});

describe('landing redirect', () => {
  it('sends a logged-in visitor home and keeps others', () => {
    expect(landingRedirect(true, 'ja')).toBe('/ja/');
    expect(landingRedirect(false, 'ja')).toBeNull();
  });
});

describe('closing the page-mode generator (spec 1 §2)', () => {
  it('goes home when there is no history', () => {
    expect(closeGeneratorAction({ index: 0, previousPath: null }, 'en')).toEqual({ kind: 'navigate', to: '/en/' });
  });

  it('goes home when the previous page was the home page', () => {
    for (const home of ['/en/', '/en', '/', '/de/']) {
      expect(closeGeneratorAction({ index: 2, previousPath: home }, 'de'), home).toEqual({ kind: 'navigate', to: '/de/' });
    }
  });

  it('goes back otherwise, also when the previous path is unknown (before a reload)', () => {
    expect(closeGeneratorAction({ index: 1, previousPath: '/en/explore/detail/3' }, 'en')).toEqual({ kind: 'back' });
    expect(closeGeneratorAction({ index: 3, previousPath: null }, 'en')).toEqual({ kind: 'back' });
  });

  it('recognises home paths', () => {
    expect(isHomePath('/zhCN/')).toBe(true);
    expect(isHomePath('/en/?x=1')).toBe(true);
    expect(isHomePath('/en/create')).toBe(false);
  });
});
