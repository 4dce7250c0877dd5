import { describe, expect, it } from 'vitest';
import {
  chineseRatio,
  DEFINITION_DEBOUNCE_MS,
  displayName,
  displayWeight,
  NAME_MAX_CHARS,
  translationNeed,
} from './display';

describe('displayed word name (spec 1 §5: cut at 200 characters)', () => {
  it('keeps names up to 200 characters', () => {
    expect(NAME_MAX_CHARS).toBe(200);
    const name = 'a'.repeat(200);
    expect(displayName(name)).toBe(name);
    expect(displayName('')).toBe('');
  });

  it.each([
    ['ascii', 'a', 'a'],
    ['CJK', '猫', '猫'],
    ['emoji (two UTF-16 units each)', '😀', '😀'],
    ['CJK extension B (two units)', '𠀀', '𠀀'],
  ])('cuts %s at 200 characters, not UTF-16 units', (_label, ch, same) => {
    const cut = displayName(ch.repeat(250) + 'tail');
    expect(Array.from(cut)).toHaveLength(200);
    expect(cut).toBe(same.repeat(200));
    // No lone surrogate at the end.
    expect(cut).toBe(cut.normalize());
    expect(/[\uD800-\uDBFF]$/.test(cut)).toBe(false);
  });

  it('counts a 150-emoji name as 150 characters (300 UTF-16 units) and keeps it whole', () => {
    const name = '😀'.repeat(150);
    expect(name.length).toBe(300);
    expect(displayName(name)).toBe(name);
  });
});

describe('displayed weight (spec 1 §3: shown only when not 1)', () => {
  it.each([
    [1, null],
    [1.1, '1.1'],
    [0.91, '0.91'],
    [2, '2'],
    [-1, '-1'],
    [0, '0'],
  ])('%s → %s', (lv, want) => {
    expect(displayWeight(lv)).toBe(want);
  });
});

describe('definition debounce (spec 1 §9)', () => {
  it('is 200 ms', () => {
    expect(DEFINITION_DEBOUNCE_MS).toBe(200);
  });
});

describe('translation thresholds (spec 1 §5)', () => {
  it('measures the Chinese share of non-space characters', () => {
    expect(chineseRatio('')).toBe(0);
    expect(chineseRatio('   ')).toBe(0);
    expect(chineseRatio('猫')).toBe(1);
    expect(chineseRatio('猫 cat')).toBe(0.25);
    expect(chineseRatio('𠀀a')).toBe(0.5);
  });

  it.each([
    ['一只猫', 'normal', 'toEnglish'],
    ['一只猫', 'style', 'toEnglish'],
    ['猫猫 a', 'normal', 'toEnglish'], // 2/3 > 50 %
    ['猫 a', 'normal', 'none'], // exactly 50 %: not over
    ['1girl, smile', 'normal', 'gloss'],
    ['1girl, smile', 'style', 'none'], // gloss for normal words only
    ['1girl, smile', 'eg', 'none'],
    ['aaaaaaaaaaaaaaaaaaa猫', 'normal', 'none'], // 1/20 = 5 %: not under
    ['aaaaaaaaaaaaaaaaaaaa猫', 'normal', 'gloss'], // 1/21 < 5 %
    ['   ', 'normal', 'none'],
  ])('%j (%s) → %s', (text, subType, want) => {
    expect(translationNeed(text, subType)).toBe(want);
  });
});
