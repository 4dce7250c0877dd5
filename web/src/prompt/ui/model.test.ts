import { describe, expect, it } from 'vitest';
import { addText, addGroup, createPreset, listOf, stepWordLv, toggleList, type Preset } from '../editor';
import {
  dictionaryShownByDefault,
  dropIndex,
  isDrag,
  isMobileAgent,
  keyboardTarget,
  presetFromTexts,
  rendersTo,
  switchDialect,
  textsOf,
} from './model';

const DESKTOP = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';
const PHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148';

function words(preset: Preset, list: Parameters<typeof listOf>[1]): string[] {
  return listOf(preset.groups[0]!, list).items.map((w) => `${w.type === 'command' ? w.rawText : w.text}${w.lv === 1 ? '' : `:${w.lv}`}${w.disabled ? '!' : ''}`);
}

describe('loading texts', () => {
  it('parses the prompt and the separate negative prompt into one group', () => {
    const p = presetFromTexts(createPreset(1), '(cat:1.2), dog', 'blurry, (ugly:1.1)');
    expect(words(p, 'normal')).toEqual(['cat:1.2', 'dog']);
    expect(words(p, 'negative')).toEqual(['blurry', 'ugly:1.1']);
    // 1.1 is one bracket step, rendered as (ugly).
    expect(textsOf(p)).toEqual({ prompt: '(cat:1.2), dog', negative: 'blurry, (ugly)' });
    expect(rendersTo(p, '(cat:1.2), dog', 'blurry, (ugly)')).toBe(true);
    expect(rendersTo(p, 'cat', '')).toBe(false);
  });

  it('keeps commands apart in the command list', () => {
    const p = presetFromTexts({ ...createPreset(1), parser: 'bot' }, 'cat::2 dog --ar 16:9 --no blur', '');
    expect(words(p, 'command')).toEqual(['--ar 16:9']);
    expect(words(p, 'negative')).toEqual(['blur']);
  });
});

describe('switching dialect', () => {
  it('keeps the words and weights and re-renders the text', () => {
    const web = presetFromTexts(createPreset(1), '(cat:1.5), dog', 'blurry');
    const bot = switchDialect(web, 'bot');
    expect(bot.parser).toBe('bot');
    expect(words(bot, 'normal')).toEqual(['cat:1.5', 'dog']);
    expect(textsOf(bot).prompt).toBe('cat::1.5 dog --no blurry');
    expect(textsOf(bot).negative).toBe('');
    const back = switchDialect(bot, 'webui');
    expect(textsOf(back)).toEqual({ prompt: '(cat:1.5), dog', negative: 'blurry' });
    expect(switchDialect(back, 'webui')).toBe(back);
  });

  it('keeps edits made after loading (weights, disabled words)', () => {
    let p = presetFromTexts(createPreset(1), 'cat, dog', '');
    p = stepWordLv(p, 'cat', 'up');
    p = toggleList(p, 'g1', 'normal');
    p = toggleList(p, 'g1', 'normal');
    expect(textsOf(switchDialect(p, 'bot')).prompt).toBe('cat::1.1 dog');
  });
});

describe('keyboard moves', () => {
  const p = addText(addGroup(presetFromTexts(createPreset(1), 'a, b, c', 'n')), 'x', { groupId: 'g2' });

  it('left and right step within the list and stop at its ends', () => {
    expect(keyboardTarget(p, { groupId: 'g1', list: 'normal', index: 1 }, 'ArrowLeft')).toEqual({ groupId: 'g1', list: 'normal', index: 0 });
    expect(keyboardTarget(p, { groupId: 'g1', list: 'normal', index: 1 }, 'ArrowRight')).toEqual({ groupId: 'g1', list: 'normal', index: 2 });
    expect(keyboardTarget(p, { groupId: 'g1', list: 'normal', index: 0 }, 'ArrowLeft')).toBeNull();
    expect(keyboardTarget(p, { groupId: 'g1', list: 'normal', index: 2 }, 'ArrowRight')).toBeNull();
  });

  it('up and down go to the end of the previous or next list, across groups', () => {
    expect(keyboardTarget(p, { groupId: 'g1', list: 'normal', index: 0 }, 'ArrowDown')).toEqual({ groupId: 'g1', list: 'style', index: 0 });
    expect(keyboardTarget(p, { groupId: 'g1', list: 'quality', index: 0 }, 'ArrowDown')).toEqual({ groupId: 'g1', list: 'command', index: 0 });
    expect(keyboardTarget(p, { groupId: 'g1', list: 'command', index: 0 }, 'ArrowDown')).toEqual({ groupId: 'g1', list: 'negative', index: 1 });
    expect(keyboardTarget(p, { groupId: 'g1', list: 'negative', index: 0 }, 'ArrowDown')).toEqual({ groupId: 'g2', list: 'normal', index: 1 });
    expect(keyboardTarget(p, { groupId: 'g2', list: 'normal', index: 0 }, 'ArrowUp')).toEqual({ groupId: 'g1', list: 'negative', index: 1 });
    expect(keyboardTarget(p, { groupId: 'g1', list: 'normal', index: 0 }, 'ArrowUp')).toBeNull();
    expect(keyboardTarget(p, { groupId: 'g2', list: 'negative', index: 0 }, 'ArrowDown')).toBeNull();
  });
});

describe('dictionary pad default (spec 1 §2)', () => {
  it('shows only on non-mobile visits wider than 1215 px', () => {
    expect(dictionaryShownByDefault(1216, DESKTOP)).toBe(true);
    expect(dictionaryShownByDefault(1215, DESKTOP)).toBe(false);
    expect(dictionaryShownByDefault(1400, PHONE)).toBe(false);
    expect(isMobileAgent(PHONE)).toBe(true);
    expect(isMobileAgent(DESKTOP)).toBe(false);
  });
});

describe('drag', () => {
  it('starts only after more than 10 px', () => {
    expect(isDrag(10, 0)).toBe(false);
    expect(isDrag(6, 8)).toBe(false);
    expect(isDrag(7, 8)).toBe(true);
    expect(isDrag(0, -11)).toBe(true);
  });

  it('computes the drop index before or after the chip under the pointer', () => {
    expect(dropIndex({ index: 2, after: false }, 5, null)).toBe(2);
    expect(dropIndex({ index: 2, after: true }, 5, null)).toBe(3);
    expect(dropIndex(null, 5, null)).toBe(5);
    // Same list: the word's own removal shifts later positions.
    expect(dropIndex({ index: 3, after: true }, 5, 0)).toBe(3);
    expect(dropIndex({ index: 0, after: false }, 5, 3)).toBe(0);
    expect(dropIndex(null, 5, 1)).toBe(4);
  });
});
