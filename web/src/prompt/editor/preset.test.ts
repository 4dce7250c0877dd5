import { describe, expect, it } from 'vitest';
import type { Word } from '../types';
import { LIST_TYPES, listOf, type ListType } from './lists';
import {
  addGroup,
  addTerm,
  addWords,
  allWords,
  assignWordIds,
  createGroup,
  createPreset,
  createWord,
  disableAllTarget,
  duplicateCount,
  findWord,
  hasTerm,
  moveGroup,
  moveWord,
  moveWordToGroup,
  moveWordToList,
  nextGroupId,
  patchWord,
  removeGroup,
  removeTerm,
  removeWord,
  renamePreset,
  setGroupLv,
  setWordLv,
  stepGroupLv,
  stepWordLv,
  toggleGroup,
  toggleList,
  toggleWord,
  UNTITLED,
  type Preset,
} from './preset';
import { word } from './testWords';
import { LV_MAX, LV_MIN } from './weight';

const NOW = 1_700_000_000_000;

function texts(preset: Preset, type: ListType, groupIndex = 0): string[] {
  const group = preset.groups[groupIndex];
  return group === undefined ? [] : listOf(group, type).items.map((w) => w.rawText);
}

function ids(preset: Preset): string[] {
  return allWords(preset).map((w) => w.id);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/** A preset with normal a, b, c; style s; negative n; in group g1, and an empty group g2. */
function sample(): Preset {
  let p = createPreset(NOW);
  p = addWords(p, [word('a'), word('b'), word('c'), word('s', { subType: 'style' }), word('n', { subType: 'eg' })]);
  p = addGroup(p);
  return deepFreeze(p);
}

function get(preset: Preset, id: string): Word {
  const at = findWord(preset, id);
  if (at === null) throw new Error(`no word ${id}`);
  return at.word;
}

describe('createPreset / createGroup (spec 1 §3)', () => {
  it('has the defaults', () => {
    const p = createPreset(NOW);
    expect(p).toMatchObject({ id: NOW, name: UNTITLED, input: '', output: '', parser: 'webui', dictTerms: [] });
    expect(UNTITLED).toBe('untitled');
    expect(p.groups).toHaveLength(1);
    expect(p.groups[0]?.groupLv).toBe(1);
    expect(p.groups[0]?.lists.map((l) => [l.type, l.code, l.items.length])).toEqual([
      ['normal', 6, 0],
      ['style', 7, 0],
      ['quality', 8, 0],
      ['command', 9, 0],
      ['negative', 10, 0],
    ]);
  });

  it('uses the creation time as id by default', () => {
    const before = Date.now();
    const p = createPreset();
    expect(p.id).toBeGreaterThanOrEqual(before);
    expect(p.id).toBeLessThanOrEqual(Date.now());
  });

  it('creates groups with a level, clamped', () => {
    expect(createGroup('x').groupLv).toBe(1);
    expect(createGroup('x', 1.21).groupLv).toBe(1.21);
    expect(createGroup('x', 50).groupLv).toBe(LV_MAX);
    expect(createGroup('x').lists.map((l) => l.type)).toEqual([...LIST_TYPES]);
  });

  it('creates words with the defaults of spec 1 §3', () => {
    expect(createWord('cat')).toMatchObject({ rawText: 'cat', text: 'cat', type: 'word', subType: 'normal', lv: 1, isEg: false, disabled: false });
    expect(createWord('ugly', 'eg').isEg).toBe(true);
    expect(Array.from(createWord('猫'.repeat(300)).text)).toHaveLength(200);
  });
});

describe('adding words', () => {
  it('classifies by sub-type into the first group by default', () => {
    const p = sample();
    expect(texts(p, 'normal')).toEqual(['a', 'b', 'c']);
    expect(texts(p, 'style')).toEqual(['s']);
    expect(texts(p, 'negative')).toEqual(['n']);
    expect(texts(p, 'normal', 1)).toEqual([]);
  });

  it('puts words in a given group and list, fitting sub-type and isEg', () => {
    const p = addWords(sample(), [word('x'), word('y', { subType: 'eg' })], { groupId: 'g2', list: 'quality' });
    expect(texts(p, 'quality', 1)).toEqual(['x', 'y']);
    expect(get(p, 'y')).toMatchObject({ subType: 'quality', isEg: false });
  });

  it('ignores an unknown group and an empty list of words', () => {
    const p = sample();
    expect(addWords(p, [word('x')], { groupId: 'nope' })).toBe(p);
    expect(addWords(p, [])).toBe(p);
  });

  it('counts duplicates the way the parsers do: rawText, rawText#1, rawText#2', () => {
    let p = sample();
    p = addWords(p, [word('a')]);
    p = addWords(p, [word('a'), word('a')], { groupId: 'g2' });
    expect(ids(p).filter((id) => id.startsWith('a'))).toEqual(['a', 'a#1', 'a#2', 'a#3']);
    expect(duplicateCount(p, 'a')).toBe(4);
    expect(duplicateCount(p, 'b')).toBe(1);
    expect(duplicateCount(p, 'zzz')).toBe(0);
    expect(new Set(ids(p)).size).toBe(ids(p).length);
  });

  it('skips ids already taken (a literal "a#1" word)', () => {
    const out = assignWordIds([word('a'), word('a#1')], [word('a'), word('a')], NOW);
    expect(out.map((w) => w.id)).toEqual(['a#2', 'a#3']);
    const parsed = assignWordIds([], ['cat', 'cat', 'cat#1', 'cat', 'cat'].map((t) => word(t)), NOW);
    expect(parsed.map((w) => w.id)).toEqual(['cat', 'cat#1', 'cat#1#1', 'cat#2', 'cat#3']);
  });

  it('keys a new empty word by the time', () => {
    const p = addWords(createPreset(NOW), [createWord(''), createWord('')], {}, 42);
    expect(ids(p)).toEqual(['42', '42#1']);
  });

  it('never mutates its input', () => {
    const p = sample();
    const snapshot = JSON.stringify(p);
    addWords(p, [word('z')]);
    removeWord(p, 'a');
    toggleList(p, 'g1', 'normal');
    moveWord(p, { groupId: 'g1', list: 'normal', index: 0 }, { groupId: 'g2', list: 'style', index: 0 });
    stepWordLv(p, 'a', 'up');
    expect(JSON.stringify(p)).toBe(snapshot);
  });
});

describe('removing, weighting, toggling words', () => {
  it('removes by id', () => {
    const p = removeWord(sample(), 'b');
    expect(texts(p, 'normal')).toEqual(['a', 'c']);
    expect(removeWord(p, 'b')).toBe(p);
  });

  it('steps a weight by 1.1 and keeps alv in step: 1 → 1.1 → 1.21, 1 → 0.91', () => {
    let p = sample();
    p = stepWordLv(p, 'a', 'up');
    expect(get(p, 'a')).toMatchObject({ lv: 1.1, alv: 1 });
    p = stepWordLv(p, 'a', 'up');
    expect(get(p, 'a')).toMatchObject({ lv: 1.21, alv: 2 });
    p = stepWordLv(p, 'b', 'down');
    expect(get(p, 'b')).toMatchObject({ lv: 0.91, alv: -1 });
    p = stepWordLv(stepWordLv(p, 'a', 'down'), 'a', 'down');
    expect(get(p, 'a')).toMatchObject({ lv: 1, alv: 0 });
  });

  it('sets a weight rounded and clamped', () => {
    const p = sample();
    expect(get(setWordLv(p, 'a', 1.234), 'a')).toMatchObject({ lv: 1.23, alv: 0 });
    expect(get(setWordLv(p, 'a', 100), 'a').lv).toBe(LV_MAX);
    expect(get(setWordLv(p, 'a', 0.001), 'a').lv).toBe(LV_MIN);
    expect(setWordLv(p, 'a', 1)).toBe(p);
    expect(setWordLv(p, 'missing', 2)).toBe(p);
  });

  it('toggles one word', () => {
    const p = toggleWord(sample(), 'c');
    expect(get(p, 'c').disabled).toBe(true);
    expect(get(toggleWord(p, 'c'), 'c').disabled).toBe(false);
  });

  it('patches descriptive fields only', () => {
    const p = patchWord(sample(), 'a', { langText: '甲', desc: 'letter' });
    expect(get(p, 'a')).toMatchObject({ langText: '甲', desc: 'letter', rawText: 'a', lv: 1 });
    expect(patchWord(p, 'a', { langText: '甲' })).toBe(p);
  });
});

describe('the disable-all toggle (spec 1 §5)', () => {
  it.each([
    [[false, false], true],
    [[true, false], true],
    [[false, true], true],
    [[true, true], false],
    [[true], false],
    [[false], true],
  ])('states %j → disabled %s', (states, want) => {
    expect(disableAllTarget(states.map((disabled, i) => word(String(i), { disabled })))).toBe(want);
  });

  it('has nothing to do on an empty list', () => {
    expect(disableAllTarget([])).toBeNull();
    const p = sample();
    expect(toggleList(p, 'g2', 'normal')).toBe(p);
    expect(toggleGroup(p, 'g2')).toBe(p);
  });

  it('disables a whole list when some are enabled, then enables all when all are disabled', () => {
    let p = toggleWord(sample(), 'b');
    p = toggleList(p, 'g1', 'normal');
    expect(listOf(p.groups[0] ?? createGroup('x'), 'normal').items.map((w) => w.disabled)).toEqual([true, true, true]);
    // Other lists untouched.
    expect(get(p, 's').disabled).toBe(false);
    p = toggleList(p, 'g1', 'normal');
    expect(['a', 'b', 'c'].map((id) => get(p, id).disabled)).toEqual([false, false, false]);
  });

  it('works over all lists of a group', () => {
    let p = toggleList(sample(), 'g1', 'normal');
    // Normal all disabled, style and negative enabled: not every item disabled → disable all.
    p = toggleGroup(p, 'g1');
    expect(['a', 'b', 'c', 's', 'n'].every((id) => get(p, id).disabled)).toBe(true);
    p = toggleGroup(p, 'g1');
    expect(['a', 'b', 'c', 's', 'n'].some((id) => get(p, id).disabled)).toBe(false);
  });
});

describe('moving words', () => {
  it('reorders within a list by drag indices', () => {
    const p = sample();
    const at = (index: number) => ({ groupId: 'g1', list: 'normal' as const, index });
    expect(texts(moveWord(p, at(0), at(2)), 'normal')).toEqual(['b', 'c', 'a']);
    expect(texts(moveWord(p, at(2), at(0)), 'normal')).toEqual(['c', 'a', 'b']);
    expect(texts(moveWord(p, at(0), at(1)), 'normal')).toEqual(['b', 'a', 'c']);
    expect(texts(moveWord(p, at(1), at(99)), 'normal')).toEqual(['a', 'c', 'b']);
    expect(moveWord(p, at(1), at(1))).toBe(p);
    expect(moveWord(p, at(7), at(0))).toBe(p);
  });

  it('moves between lists keeping every field but subType/isEg', () => {
    let p = stepWordLv(toggleWord(patchWord(sample(), 'a', { langText: 'A' }), 'a'), 'a', 'up');
    const before = get(p, 'a');
    p = moveWord(p, { groupId: 'g1', list: 'normal', index: 0 }, { groupId: 'g1', list: 'style', index: 0 });
    expect(texts(p, 'normal')).toEqual(['b', 'c']);
    expect(texts(p, 'style')).toEqual(['a', 's']);
    expect(get(p, 'a')).toEqual({ ...before, subType: 'style' });

    p = moveWordToList(p, 'a', 'negative');
    expect(texts(p, 'negative')).toEqual(['n', 'a']);
    expect(get(p, 'a')).toEqual({ ...before, subType: 'eg', isEg: true });

    p = moveWordToList(p, 'n', 'normal');
    expect(get(p, 'n')).toMatchObject({ subType: 'normal', isEg: false });
    expect(texts(p, 'normal')).toEqual(['b', 'c', 'n']);
  });

  it('moves between groups', () => {
    let p = moveWordToGroup(sample(), 'b', 'g2');
    expect(texts(p, 'normal')).toEqual(['a', 'c']);
    expect(texts(p, 'normal', 1)).toEqual(['b']);
    p = moveWord(p, { groupId: 'g1', list: 'style', index: 0 }, { groupId: 'g2', list: 'normal', index: 0 });
    expect(texts(p, 'normal', 1)).toEqual(['s', 'b']);
    expect(get(p, 's').subType).toBe('normal');
    p = moveWordToGroup(p, 's', 'g2');
    expect(texts(p, 'normal', 1)).toEqual(['b', 's']);
    expect(moveWordToGroup(p, 's', 'nope')).toBe(p);
    expect(moveWordToGroup(p, 'nope', 'g1')).toBe(p);
    expect(moveWord(p, { groupId: 'g1', list: 'normal', index: 0 }, { groupId: 'nope', list: 'normal', index: 0 })).toBe(p);
    expect(allWords(p)).toHaveLength(5);
  });
});

describe('groups', () => {
  it('steps and sets the group level', () => {
    let p = stepGroupLv(sample(), 'g1', 'up');
    expect(p.groups[0]?.groupLv).toBe(1.1);
    p = stepGroupLv(p, 'g1', 'up');
    expect(p.groups[0]?.groupLv).toBe(1.21);
    p = setGroupLv(p, 'g2', 0.5);
    expect(p.groups[1]?.groupLv).toBe(0.5);
    expect(setGroupLv(p, 'g2', 0.5)).toBe(p);
    expect(stepGroupLv(p, 'nope', 'up')).toBe(p);
  });

  it('adds, removes and reorders groups with unique ids', () => {
    let p = sample();
    expect(nextGroupId(p)).toBe('g3');
    p = addGroup(p, 0);
    expect(p.groups.map((g) => g.id)).toEqual(['g3', 'g1', 'g2']);
    p = removeGroup(p, 'g1');
    expect(p.groups.map((g) => g.id)).toEqual(['g3', 'g2']);
    expect(allWords(p)).toHaveLength(0);
    expect(nextGroupId(p)).toBe('g1');
    p = moveGroup(p, 0, 5);
    expect(p.groups.map((g) => g.id)).toEqual(['g2', 'g3']);
    expect(moveGroup(p, 1, 1)).toBe(p);
    expect(moveGroup(p, 9, 0)).toBe(p);
    p = removeGroup(removeGroup(p, 'g2'), 'g3');
    expect(p.groups.map((g) => g.id)).toEqual(['g3']);
    expect(removeGroup(p, 'nope')).toBe(p);
  });
});

describe('preset fields', () => {
  it('renames; blank is untitled', () => {
    const p = sample();
    expect(renamePreset(p, '  portraits ').name).toBe('portraits');
    expect(renamePreset(renamePreset(p, 'x'), '   ').name).toBe(UNTITLED);
    expect(renamePreset(p, UNTITLED)).toBe(p);
  });

  it('records dictionary terms once, ignoring case', () => {
    let p = addTerm(sample(), ' Masterpiece ');
    p = addTerm(p, 'masterpiece');
    p = addTerm(p, 'cat');
    p = addTerm(p, '  ');
    expect(p.dictTerms).toEqual(['Masterpiece', 'cat']);
    expect(hasTerm(p, 'MASTERPIECE')).toBe(true);
    p = removeTerm(p, 'masterPIECE');
    expect(p.dictTerms).toEqual(['cat']);
    expect(removeTerm(p, 'dog')).toBe(p);
  });
});
