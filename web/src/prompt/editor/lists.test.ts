import { describe, expect, it } from 'vitest';
import {
  classifyWords,
  emptyLists,
  fitWordToList,
  isListType,
  LIST_CODES,
  LIST_TYPES,
  listOf,
  listTypeOfCode,
  listTypeOfWord,
  subTypeOfList,
} from './lists';
import { word } from './testWords';

describe('list types (spec 1 §3)', () => {
  it('are normal 6, style 7, quality 8, command 9, negative 10, in that order', () => {
    expect(LIST_TYPES).toEqual(['normal', 'style', 'quality', 'command', 'negative']);
    expect(LIST_TYPES.map((t) => LIST_CODES[t])).toEqual([6, 7, 8, 9, 10]);
    expect(emptyLists().map((l) => [l.type, l.code, l.items.length])).toEqual([
      ['normal', 6, 0],
      ['style', 7, 0],
      ['quality', 8, 0],
      ['command', 9, 0],
      ['negative', 10, 0],
    ]);
  });

  it.each([
    [6, 'normal'],
    [7, 'style'],
    [8, 'quality'],
    [9, 'command'],
    [10, 'negative'],
    [5, null],
    [11, null],
  ])('code %s is %s', (code, type) => {
    expect(listTypeOfCode(code)).toBe(type);
  });

  it('recognises list type names', () => {
    expect(isListType('style')).toBe(true);
    expect(isListType('eg')).toBe(false);
    expect(isListType(7)).toBe(false);
  });
});

describe('classifying words', () => {
  it.each([
    [{ subType: 'normal' as const, isEg: false }, 'normal'],
    [{ subType: 'style' as const, isEg: false }, 'style'],
    [{ subType: 'quality' as const, isEg: false }, 'quality'],
    [{ subType: 'command' as const, isEg: false }, 'command'],
    [{ subType: 'eg' as const, isEg: true }, 'negative'],
    [{ subType: 'eg' as const, isEg: false }, 'negative'],
    [{ subType: 'style' as const, isEg: true }, 'negative'],
    [{ subType: 'normal' as const, isEg: true }, 'negative'],
  ])('%j goes to %s', (fields, list) => {
    expect(listTypeOfWord(fields)).toBe(list);
  });

  it('sorts words into the five lists keeping their order', () => {
    const lists = classifyWords(
      [
        word('a'),
        word('--ar 16:9', { type: 'command', subType: 'command' }),
        word('b', { subType: 'style' }),
        word('c'),
        word('best quality', { subType: 'quality' }),
      ],
      [word('blurry', { subType: 'eg', isEg: true }), word('forced')],
    );
    expect(lists.map((l) => [l.code, l.items.map((w) => w.rawText)])).toEqual([
      [6, ['a', 'c']],
      [7, ['b']],
      [8, ['best quality']],
      [9, ['--ar 16:9']],
      [10, ['blurry', 'forced']],
    ]);
    expect(listOf({ lists }, 'style').items[0]?.rawText).toBe('b');
    expect(listOf({ lists: [] }, 'style').items).toEqual([]);
  });

  it('fits a word to a list: subType and isEg follow, everything else stays', () => {
    const w = word('cat', { lv: 1.21, alv: 2, disabled: true, langText: '猫', args: ['x'] });
    const neg = fitWordToList(w, 'negative');
    expect(neg).toEqual({ ...w, subType: 'eg', isEg: true });
    expect(fitWordToList(neg, 'style')).toEqual({ ...w, subType: 'style', isEg: false });
    expect(fitWordToList(w, 'normal')).toBe(w);
    expect(LIST_TYPES.map(subTypeOfList)).toEqual(['normal', 'style', 'quality', 'command', 'eg']);
  });
});
