import { describe, expect, it, vi } from 'vitest';
import { badgeText, fetchDefinitions, TranslationCache, wantsTranslation, type Poster } from './api';

function fakeApi(answer: (path: string, body: unknown) => unknown) {
  const calls: Array<{ path: string; body: unknown }> = [];
  const api = {
    post: vi.fn(async (path: string, body?: unknown) => {
      calls.push({ path, body });
      return answer(path, body);
    }),
  } as unknown as Poster;
  return { api, calls };
}

function memoryStorage() {
  const map = new Map<string, string>();
  return { getItem: (k: string) => map.get(k) ?? null, setItem: (k: string, v: string) => void map.set(k, v), map };
}

describe('definitions', () => {
  it('sends language, category, cursor and limit', async () => {
    const { api, calls } = fakeApi(() => ({ language: 'en', categories: [], total: 0, items: [], next_cursor: null }));
    await fetchDefinitions(api, { language: 'zhCN', category: 'style', cursor: '120' });
    await fetchDefinitions(api, { language: 'en' });
    expect(calls).toEqual([
      { path: '/api/v1/prompt/definitions', body: { language: 'zhCN', limit: 120, category: 'style', cursor: '120' } },
      { path: '/api/v1/prompt/definitions', body: { language: 'en', limit: 120 } },
    ]);
  });
});

describe('translation badges', () => {
  it('asks only about words whose language differs (spec 1 §5)', () => {
    expect(wantsTranslation('猫', 'normal', 'en')).toBe(true);
    expect(wantsTranslation('cat', 'normal', 'en')).toBe(false);
    expect(wantsTranslation('cat', 'normal', 'zhCN')).toBe(true);
    expect(wantsTranslation('cat', 'style', 'zhCN')).toBe(false);
    expect(wantsTranslation('猫 cat dog', 'normal', 'zhCN')).toBe(false);
  });

  it('shows real translations only', () => {
    expect(badgeText({ text: '猫', plan: 'to_english', translation: 'cat' })).toBe('cat');
    expect(badgeText({ text: 'cat', plan: 'keep', translation: null })).toBeNull();
    expect(badgeText({ text: 'Cat', plan: 'to_local', translation: 'cat' })).toBeNull();
  });

  it('asks each text once per session, in one batch, and remembers it over a reload', async () => {
    const { api, calls } = fakeApi((_path, body) => ({
      language: 'zhCN',
      items: (body as { texts: Array<{ text: string }> }).texts.map((t) => ({
        text: t.text,
        plan: 'to_local',
        translation: t.text === 'cat' ? '猫' : null,
      })),
    }));
    const storage = memoryStorage();
    const cache = new TranslationCache(storage);
    const items = [
      { text: 'cat', subType: 'normal' },
      { text: 'dog', subType: 'normal' },
      { text: 'cat', subType: 'normal' },
    ];
    await cache.fetch(api, 'zhCN', items);
    await cache.fetch(api, 'zhCN', items);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.body).toEqual({ language: 'zhCN', texts: [{ text: 'cat', type: 'normal' }, { text: 'dog', type: 'normal' }] });
    expect(cache.get('zhCN', { text: 'cat', subType: 'normal' })).toBe('猫');
    expect(cache.get('zhCN', { text: 'dog', subType: 'normal' })).toBeNull();
    expect(cache.get('ja', { text: 'cat', subType: 'normal' })).toBeUndefined();

    const reloaded = new TranslationCache(storage);
    expect(reloaded.get('zhCN', { text: 'cat', subType: 'normal' })).toBe('猫');
  });

  it('logs a failed call and asks again later', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    let fail = true;
    const { api, calls } = fakeApi(() => {
      if (fail) throw new Error('down');
      return { language: 'en', items: [{ text: '猫', plan: 'to_english', translation: 'cat' }] };
    });
    const cache = new TranslationCache(null);
    await cache.fetch(api, 'en', [{ text: '猫', subType: 'normal' }]);
    expect(warn).toHaveBeenCalled();
    fail = false;
    await cache.fetch(api, 'en', [{ text: '猫', subType: 'normal' }]);
    expect(calls).toHaveLength(2);
    expect(cache.get('en', { text: '猫', subType: 'normal' })).toBe('cat');
  });
});
