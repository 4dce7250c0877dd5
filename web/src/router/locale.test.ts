import { describe, expect, it } from 'vitest';
import { LOCALES, localePath, parsePath, resolveLocale } from './locale';

describe('locales', () => {
  it('has the 23 platform locales', () => {
    expect(LOCALES).toHaveLength(23);
    expect(new Set(LOCALES).size).toBe(23);
    expect(LOCALES).toContain('zhCN');
    expect(LOCALES).toContain('fil');
  });

  it.each([
    ['en', 'en'],
    ['zhCN', 'zhCN'],
    ['zh-cn', 'zhCN'],
    ['ZH_TW', 'zhTW'],
    ['pt-BR', 'pt'],
    ['fr-CA', 'fr'],
    ['fil', 'fil'],
    ['xx', 'en'],
    ['klingon', 'en'],
    ['', 'en'],
    [null, 'en'],
    [undefined, 'en'],
  ])('resolveLocale(%s) = %s', (code, expected) => {
    expect(resolveLocale(code)).toBe(expected);
  });

  it.each([
    ['/', { locale: 'en', rest: '/', redirect: '/en/' }],
    ['/en/', { locale: 'en', rest: '/', redirect: null }],
    ['/en', { locale: 'en', rest: '/', redirect: '/en/' }],
    ['/ja/explore/detail/42', { locale: 'ja', rest: '/explore/detail/42', redirect: null }],
    ['/zhCN/', { locale: 'zhCN', rest: '/', redirect: null }],
    ['/xx/create', { locale: 'en', rest: '/create', redirect: '/en/create' }],
    ['/zh-tw/create', { locale: 'zhTW', rest: '/create', redirect: '/zhTW/create' }],
    ['/explore/detail/1', { locale: 'en', rest: '/explore/detail/1', redirect: '/en/explore/detail/1' }],
    ['/ai-tools/x', { locale: 'en', rest: '/ai-tools/x', redirect: '/en/ai-tools/x' }],
  ])('parsePath(%s)', (path, expected) => {
    expect(parsePath(path)).toEqual(expected);
  });

  it('builds locale paths', () => {
    expect(localePath('de', '/')).toBe('/de/');
    expect(localePath('de', 'create')).toBe('/de/create');
  });
});
