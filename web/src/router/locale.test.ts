import { describe, expect, it } from 'vitest';
import { LOCALES, localePath, parsePath, resolveLocale } from './locale';

describe('locales', () => {
  it('has the 23 language codes of spec 3 §3', () => {
    expect(LOCALES).toHaveLength(23);
    expect(new Set(LOCALES).size).toBe(23);
    const spec = 'en, ja, zh-cn, nl, ar, fr, de, id, it, ko, pt, ru, es, tr, uk, vi, th, pl, ro, el, cs, fi, hi'.split(', ');
    expect(spec.map((code) => resolveLocale(code))).toEqual([...LOCALES]);
  });

  it.each(['en', 'ja', 'zhCN', 'nl', 'ar', 'fr', 'de', 'id', 'it', 'ko', 'pt', 'ru', 'es', 'tr', 'uk', 'vi', 'th', 'pl', 'ro', 'el', 'cs', 'fi', 'hi'])(
    'accepts /%s/ as it is',
    (code) => {
      expect(parsePath(`/${code}/create`)).toEqual({ locale: code, rest: '/create', redirect: null });
    },
  );

  it.each([
    ['en', 'en'],
    ['zhCN', 'zhCN'],
    ['zh-cn', 'zhCN'],
    ['ZH_TW', 'zhCN'],
    ['zh', 'zhCN'],
    ['zh-Hant-HK', 'zhCN'],
    ['el-GR', 'el'],
    ['cs', 'cs'],
    ['pt-BR', 'pt'],
    ['fr-CA', 'fr'],
    ['fil', 'en'],
    ['sv', 'en'],
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
    ['/zh-tw/create', { locale: 'zhCN', rest: '/create', redirect: '/zhCN/create' }],
    ['/zh-cn/studio', { locale: 'zhCN', rest: '/studio', redirect: '/zhCN/studio' }],
    ['/sv/landing', { locale: 'en', rest: '/landing', redirect: '/en/landing' }],
    ['/fi/', { locale: 'fi', rest: '/', redirect: null }],
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
