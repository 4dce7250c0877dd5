import { describe, expect, it } from 'vitest';
import { editForm, listBody, NO_FILTERS, toggleFilter } from './api';
import { parseTimbrePath, timbrePath } from './route';

describe('timbre routes', () => {
  it('parses and prints every page', () => {
    const cases = [
      ['/timbre', { view: 'list' }],
      ['/timbre/', { view: 'list' }],
      ['/timbre/rec', { view: 'rec' }],
      ['/timbre/my', { view: 'my' }],
      ['/timbre/new', { view: 'new' }],
      ['/timbre/v%201', { view: 'detail', id: 'v 1' }],
    ] as const;
    for (const [path, want] of cases) {
      expect(parseTimbrePath(path), path).toEqual(want);
      expect(parseTimbrePath(timbrePath(want))).toEqual(want);
    }
    expect(parseTimbrePath('/timbres')).toBeNull();
    expect(parseTimbrePath('/timbre/a/b')).toBeNull();
    expect(parseTimbrePath('/timbre/%E0%A4')).toBeNull();
  });
});

describe('voice list filters', () => {
  it('sends only the filters that narrow, with the spec 3 field names', () => {
    expect(listBody(NO_FILTERS, null)).toEqual({ order_by: 'recommend', limit: 24 });
    let f = toggleFilter(NO_FILTERS, 'genders', 'female');
    f = toggleFilter(f, 'tones', 'gentle');
    f = toggleFilter(f, 'languages', 'ja');
    f = { ...f, order_by: 'new' };
    expect(listBody(f, 'c2', 10)).toEqual({ order_by: 'new', limit: 10, cursor: 'c2', genders: ['female'], tones: ['gentle'], languages: ['ja'] });
    expect(toggleFilter(f, 'genders', 'female').genders).toEqual([]);
  });

  it('starts a new voice from sensible defaults and an existing one from its fields', () => {
    expect(editForm(null)).toMatchObject({ name: '', language: 'en', is_public: false });
    expect(editForm({ id: 'v', name: 'Ann', description: '', gender: 'female', age: 'young', language: 'ja', intonation: 'shy', is_public: true, base: 'jf_alpha' } as never)).toEqual({
      id: 'v',
      name: 'Ann',
      description: '',
      gender: 'female',
      age: 'young',
      language: 'ja',
      intonation: 'shy',
      is_public: true,
      base: 'jf_alpha',
    });
  });
});
