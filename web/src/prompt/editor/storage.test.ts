import { describe, expect, it, vi } from 'vitest';
import { listOf } from './lists';
import { addGroup, addTerm, addWords, createPreset, renamePreset, stepGroupLv, stepWordLv, toggleWord, type Preset } from './preset';
import {
  decodePreset,
  decodeWord,
  loadPresets,
  PRESETS_STORAGE_KEY,
  PRESETS_STORAGE_VERSION,
  savePresets,
  type KeyValueStorage,
} from './storage';
import { word } from './testWords';

const NOW = 1_700_000_000_000;

/** A Map-backed `localStorage`. */
class MapStorage implements KeyValueStorage {
  readonly map = new Map<string, string>();
  getItem(key: string): string | null {
    return this.map.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.map.set(key, value);
  }
}

function stored(doc: unknown): MapStorage {
  const s = new MapStorage();
  s.setItem(PRESETS_STORAGE_KEY, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return s;
}

function rich(): Preset {
  let p = createPreset(NOW);
  p = addWords(p, [word('cat'), word('cat'), word('oil painting', { subType: 'style' }), word('blurry', { subType: 'eg' })]);
  p = stepWordLv(toggleWord(p, 'cat#1'), 'cat', 'up');
  p = stepGroupLv(addGroup(p), 'g2', 'down');
  p = addWords(p, [word('best quality', { subType: 'quality' })], { groupId: 'g2' });
  return addTerm(renamePreset(p, 'Cats'), 'cat');
}

describe('saving and loading presets', () => {
  it('round-trips presets exactly', () => {
    const s = new MapStorage();
    const presets = [rich(), createPreset(NOW + 1)];
    expect(savePresets(s, presets)).toBe(true);
    const doc = JSON.parse(s.getItem(PRESETS_STORAGE_KEY) ?? 'null') as { version: number };
    expect(doc.version).toBe(PRESETS_STORAGE_VERSION);
    expect(loadPresets(s, 0)).toEqual(presets);
  });

  it('gives a fresh preset silently when nothing is stored', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(loadPresets(new MapStorage(), NOW)).toEqual([createPreset(NOW)]);
    expect(warn).not.toHaveBeenCalled();
  });

  it.each([
    ['not JSON', '{"version":1,'],
    ['a number', '7'],
    ['null', 'null'],
    ['an array', '[]'],
    ['another version', { version: 99, presets: [] }],
    ['no presets array', { version: 1, presets: {} }],
  ])('falls back to a fresh preset and logs on %s', (_label, doc) => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(loadPresets(stored(doc), NOW)).toEqual([createPreset(NOW)]);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('drops unreadable presets, keeps the good ones, and logs each drop', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const good = rich();
    const out = loadPresets(stored({ version: 1, presets: [null, good, { id: 'x', groups: [] }, { id: 5 }] }), NOW);
    expect(out).toEqual([good]);
    expect(warn).toHaveBeenCalledTimes(3);
  });

  it('falls back to a fresh preset when every stored preset is unreadable', () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(loadPresets(stored({ version: 1, presets: [1, 'two'] }), NOW)).toEqual([createPreset(NOW)]);
    expect(loadPresets(stored({ version: 1, presets: [] }), NOW)).toEqual([createPreset(NOW)]);
  });

  it('keeps the first of two presets with the same id', () => {
    const a = renamePreset(createPreset(NOW), 'first');
    const b = renamePreset(createPreset(NOW), 'second');
    expect(loadPresets(stored({ version: 1, presets: [a, b] }), 0).map((p) => p.name)).toEqual(['first']);
  });

  it('reports a store that refuses to write, and one that refuses to read', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const full: KeyValueStorage = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
    };
    expect(savePresets(full, [createPreset(NOW)])).toBe(false);
    expect(loadPresets(full, NOW)).toEqual([createPreset(NOW)]);
    expect(warn).toHaveBeenCalledTimes(2);
  });
});

describe('repairing a stored preset', () => {
  it('fills defaults for missing fields', () => {
    const p = decodePreset({ id: 12, groups: [] }, NOW);
    expect(p).toEqual({ ...createPreset(12) });
  });

  it('repairs fields of the wrong type', () => {
    const p = decodePreset(
      { id: 12, name: '  ', input: 3, parser: 'sd', dictTerms: ['a', 'A', 5, ' b '], groups: [{ id: 3, groupLv: 'x', lists: 'no' }] },
      NOW,
    );
    expect(p).toMatchObject({ name: 'untitled', input: '', parser: 'webui', dictTerms: ['a', 'b'] });
    expect(p?.groups.map((g) => [g.id, g.groupLv, g.lists.length])).toEqual([['g1', 1, 5]]);
  });

  it('rebuilds the five lists from types or codes, in order, fitting words to their list', () => {
    const p = decodePreset(
      {
        id: 1,
        groups: [
          {
            id: 'g1',
            groupLv: 1.1,
            lists: [
              { code: 10, items: [{ rawText: 'blurry' }] },
              { type: 'style', items: [{ rawText: 'ink', subType: 'normal' }] },
              { code: 42, items: [{ rawText: 'lost' }] },
              { type: 'normal', items: [{ text: 'only text' }, { nothing: true }, 'str'] },
            ],
          },
        ],
      },
      NOW,
    );
    const g = p?.groups[0];
    if (g === undefined) throw new Error('no group');
    expect(g.lists.map((l) => l.code)).toEqual([6, 7, 8, 9, 10]);
    expect(listOf(g, 'normal').items.map((w) => w.rawText)).toEqual(['only text']);
    expect(listOf(g, 'style').items[0]).toMatchObject({ rawText: 'ink', subType: 'style', isEg: false });
    expect(listOf(g, 'negative').items[0]).toMatchObject({ rawText: 'blurry', subType: 'eg', isEg: true });
    expect(g.groupLv).toBe(1.1);
  });

  it('makes ids unique across the preset and group ids unique', () => {
    const items = [{ rawText: 'cat', id: 'cat' }, { rawText: 'cat', id: 'cat' }, { rawText: 'cat' }];
    const p = decodePreset(
      {
        id: 1,
        groups: [
          { id: 'g1', lists: [{ type: 'normal', items }] },
          { id: 'g1', lists: [{ type: 'normal', items: [{ rawText: '', id: '' }] }] },
        ],
      },
      77,
    );
    expect(p?.groups.map((g) => g.id)).toEqual(['g1', 'g2']);
    expect(p?.groups.flatMap((g) => g.lists.flatMap((l) => l.items.map((w) => w.id)))).toEqual(['cat', 'cat#1', 'cat#2', '77']);
  });

  it('repairs words: clamped weight, recomputed alv, known types only, string args', () => {
    expect(decodeWord({ rawText: 'a', lv: 1e9, alv: 5, type: 'spell', subType: 'odd', args: ['x', 2], disabled: 'yes' })).toEqual({
      ...word('a', { id: '' }),
      lv: 10,
      alv: 0,
      args: ['x'],
    });
    expect(decodeWord({ rawText: 'a', lv: 1.21 })?.alv).toBe(2);
    expect(decodeWord({ rawText: 'a', subType: 'eg' })?.isEg).toBe(true);
    expect(decodeWord({ rawText: 'a'.repeat(300) })?.text).toHaveLength(200);
    expect(decodeWord({ lv: 1 })).toBeNull();
    expect(decodeWord([])).toBeNull();
  });

  it('re-renders the output rather than trusting the stored one', () => {
    const p = rich();
    const restored = decodePreset({ ...p, output: 'stale' }, NOW);
    expect(restored?.output).toBe(p.output);
    expect(p.output).not.toBe('');
  });
});
