// The text filter page's pure parts and calls: which entries a view shows,
// a draft's checks and its fresh id, a tried text cut at its hits, and the
// bodies of the operators' calls.
import { describe, expect, it } from 'vitest';
import { en } from '../i18n/en';
import { zh } from '../i18n/zh';
import { en_textfilter } from '../i18n/en.textfilter';
import { zh_textfilter } from '../i18n/zh.textfilter';
import type { FilterEntryView } from './textFilterApi';
import { TextFilterApi } from './textFilterApi';
import { ALL, draftOf, draftProblem, EMPTY_DRAFT, entryOf, languages, newId, pieces, visible } from './textFilterModel';

function entry(id: string, over: Partial<FilterEntryView> = {}): FilterEntryView {
  return { id, term: id, kind: 'word', lang: 'en', category: 'x', action: 'mask', scenes: [], whole_word: true, source: 'default', updated_at: 0, ...over };
}

describe('the list view', () => {
  const list = [
    entry('default.en.b', { term: 'bee' }),
    entry('default.zh.a', { lang: 'zh', term: '傻逼', action: 'mask' }),
    entry('op.en.old', { source: 'operator', updated_at: 5, action: 'refuse', category: 'fruit' }),
    entry('op.en.new', { source: 'operator', updated_at: 9 }),
    entry('default.any', { lang: '*', action: 'allow' }),
  ];

  it('lists operators’ entries first, newest first, then the shipped ones by id', () => {
    expect(visible(list, ALL).map((e) => e.id)).toEqual(['op.en.new', 'op.en.old', 'default.any', 'default.en.b', 'default.zh.a']);
  });

  it('filters by language, action and search', () => {
    expect(visible(list, { ...ALL, lang: 'zh' }).map((e) => e.id)).toEqual(['default.zh.a']);
    expect(visible(list, { ...ALL, action: 'refuse' }).map((e) => e.id)).toEqual(['op.en.old']);
    expect(visible(list, { ...ALL, search: 'FRUIT' }).map((e) => e.id)).toEqual(['op.en.old']);
    expect(visible(list, { ...ALL, search: '傻' }).map((e) => e.id)).toEqual(['default.zh.a']);
    expect(visible(list, { lang: 'en', action: 'allow', search: '' })).toEqual([]);
    expect(languages(list)).toEqual(['*', 'en', 'zh']);
  });
});

describe('drafts', () => {
  it('checks the server’s rules before sending', () => {
    expect(draftProblem({ ...EMPTY_DRAFT, term: 'grape' })).toBeNull();
    expect(draftProblem({ ...EMPTY_DRAFT, term: '   ' })).toBe('moderation.filter.problem.term');
    expect(draftProblem({ ...EMPTY_DRAFT, term: 'x'.repeat(201) })).toBe('moderation.filter.problem.term');
    expect(draftProblem({ ...EMPTY_DRAFT, term: 'x', lang: '' })).toBe('moderation.filter.problem.label');
    expect(draftProblem({ ...EMPTY_DRAFT, term: 'x', category: 'c'.repeat(33) })).toBe('moderation.filter.problem.label');
    expect(draftProblem({ ...EMPTY_DRAFT, term: '(', kind: 'pattern' })).toBe('moderation.filter.problem.pattern');
    expect(draftProblem({ ...EMPTY_DRAFT, term: 'ab+c', kind: 'pattern' })).toBeNull();
  });

  it('gives a new entry a valid, unused id and keeps an edited one’s', () => {
    expect(newId({ lang: 'en', term: 'Grape Juice!' }, new Set())).toBe('op.en.grape_juice');
    expect(newId({ lang: 'en', term: 'grape' }, new Set(['op.en.grape', 'op.en.grape-2']))).toBe('op.en.grape-3');
    expect(newId({ lang: '*', term: '傻逼' }, new Set())).toBe('op.any.entry');
    expect(newId({ lang: 'es', term: 'pornografía' }, new Set())).toBe('op.es.pornografia');
    const long = newId({ lang: 'en', term: 'a'.repeat(100) }, new Set());
    expect(long.length).toBeLessThanOrEqual(64);
    expect(/^[a-z0-9_.-]+$/.test(long)).toBe(true);

    const e = entryOf({ ...EMPTY_DRAFT, term: ' grape ', action: 'refuse', scenes: ['comment'] }, new Set());
    expect(e).toEqual({ id: 'op.en.grape', term: 'grape', kind: 'word', lang: 'en', category: 'other', action: 'refuse', scenes: ['comment'], whole_word: true });
    const edited = entryOf({ ...draftOf(entry('default.en.b')), action: 'refuse' }, new Set(['default.en.b']));
    expect(edited.id).toBe('default.en.b');
    expect(edited.action).toBe('refuse');
  });
});

describe('a tried text', () => {
  it('is cut at its hits, in characters, a refusal winning an overlap', () => {
    const p = pieces('héllo g.r.a.p.e 😀 ok', [
      { start: 6, end: 15, text: 'g.r.a.p.e', category: 'fruit', action: 'mask' },
      { start: 8, end: 11, text: 'r.a', category: 'x', action: 'refuse' },
    ]);
    expect(p.map((x) => [x.text, x.action])).toEqual([
      ['héllo ', null],
      ['g.', 'mask'],
      ['r.a', 'refuse'],
      ['.p.e', 'mask'],
      [' 😀 ok', null],
    ]);
    expect(pieces('plain', [])).toEqual([{ text: 'plain', action: null, category: null }]);
    expect(pieces('', [])).toEqual([]);
  });
});

describe('the operators’ calls', () => {
  it('sends the bodies of routes/text_filter.rs and reads the list defensively', async () => {
    const calls: Array<{ path: string; body: unknown }> = [];
    const answers: Record<string, unknown> = { '/api/v1/admin/text-filter/list': { list: [entry('a')] } };
    const api = new TextFilterApi({
      post: async <T,>(path: string, body?: unknown): Promise<T> => {
        calls.push({ path, body });
        return (answers[path] ?? null) as T;
      },
    });
    expect(await api.list()).toEqual({ list: [entry('a')], deleted_defaults: [] });
    const e = entryOf({ ...EMPTY_DRAFT, term: 'grape' }, new Set());
    await api.upsert(e);
    await api.remove('op.en.grape');
    await api.restore('default.en.shit');
    await api.detect('a grape', 'comment');
    expect(calls.slice(1)).toEqual([
      { path: '/api/v1/admin/text-filter/upsert', body: e },
      { path: '/api/v1/admin/text-filter/delete', body: { id: 'op.en.grape' } },
      { path: '/api/v1/admin/text-filter/restore', body: { id: 'default.en.shit' } },
      { path: '/api/v1/tool/text/detection', body: { text: 'a grape', scene: 'comment' } },
    ]);
    answers['/api/v1/admin/text-filter/list'] = null;
    expect(await api.list()).toEqual({ list: [], deleted_defaults: [] });
  });
});

describe('strings', () => {
  it('has every key in every language', () => {
    for (const key of Object.keys(en_textfilter)) {
      expect(Object.keys(zh_textfilter)).toContain(key);
      expect((en as Record<string, string>)[key]).toBeTruthy();
      expect((zh as Record<string, string>)[key]).not.toBe((en as Record<string, string>)[key]);
    }
  });
});
