import { describe, expect, it, vi } from 'vitest';
import { parsePrompt } from '../index';
import type { Dialect } from '../types';
import { listOf, type ListType } from './lists';
import {
  addGroup,
  addText,
  addWords,
  allWords,
  createPreset,
  importPrompts,
  setGroupLv,
  setInput,
  setParser,
  stepWordLv,
  toggleList,
  toggleWord,
  type Preset,
} from './preset';
import { parseForEditor, renderPreset } from './render';
import { word } from './testWords';
import { readPromptsParam } from './url';

const NOW = 1_700_000_000_000;

function fresh(parser: Dialect = 'webui'): Preset {
  return setParser(createPreset(NOW), parser);
}

function lists(preset: Preset, groupIndex = 0): Record<ListType, string[]> {
  const group = preset.groups[groupIndex];
  const out = { normal: [], style: [], quality: [], command: [], negative: [] } as Record<ListType, string[]>;
  if (group === undefined) return out;
  for (const type of Object.keys(out) as ListType[]) out[type] = listOf(group, type).items.map((w) => w.rawText);
  return out;
}

describe('parsing input into the lists', () => {
  it('classifies a web-UI prompt: words, commands, --no negatives', () => {
    const p = setInput(fresh(), '1girl, ((smile)), <lora:foo:0.8>, [a:b:10], --ar 16:9, --no ugly');
    expect(p.input).toBe('1girl, ((smile)), <lora:foo:0.8>, [a:b:10], --ar 16:9, --no ugly');
    expect(lists(p)).toEqual({
      normal: ['1girl', 'smile', 'foo', 'a:b:10'],
      style: [],
      quality: [],
      command: ['--ar 16:9'],
      negative: ['ugly'],
    });
    expect(allWords(p).find((w) => w.rawText === 'smile')).toMatchObject({ lv: 1.21, alv: 2 });
    expect(p.output).toBe('1girl, ((smile)), <lora:foo:0.8>, [a:b:10], --ar 16:9');
    expect(renderPreset(p).negativePrompt).toBe('ugly');
  });

  it('classifies a bot prompt', () => {
    const p = setInput(fresh('bot'), 'cat::2 dog --ar 16:9 --no ugly, bad');
    expect(lists(p)).toEqual({ normal: ['cat', 'dog'], style: [], quality: [], command: ['--ar 16:9'], negative: ['ugly', 'bad'] });
    expect(p.output).toBe('cat::2 dog --ar 16:9 --no ugly, bad');
    expect(renderPreset(p).negativePrompt).toBe('');
  });

  it('gives duplicate words the parsers\' ids', () => {
    const p = addText(setInput(fresh(), 'cat, cat, dog'), 'cat, dog');
    expect(allWords(p).map((w) => w.id)).toEqual(['cat', 'cat#1', 'dog', 'cat#2', 'dog#1']);
  });

  it('replaces the groups when the input is set again', () => {
    let p = addGroup(setInput(fresh(), 'a, b'));
    p = setInput(p, 'c');
    expect(p.groups).toHaveLength(1);
    expect(lists(p).normal).toEqual(['c']);
  });
});

describe('changing the parser', () => {
  it('re-parses the input with the new dialect', () => {
    let p = setInput(fresh(), 'cat::2 dog, (sky:1.2)');
    expect(lists(p).normal).toEqual(['cat::2 dog', 'sky']);
    p = setParser(p, 'bot');
    expect(p.parser).toBe('bot');
    expect(lists(p).normal).toEqual(['cat', 'dog, (sky:1.2)']);
    expect(allWords(p).map((w) => w.lv)).toEqual([2, 1]);
    expect(p.output).toBe('cat::2 dog, (sky:1.2)');
  });

  it('keeps groups built by hand when the input is blank, and re-renders', () => {
    let p = addWords(fresh(), [word('cat', { lv: 1.5 }), word('ugly', { subType: 'eg' })]);
    expect(p.output).toBe('(cat:1.5)');
    p = setParser(p, 'bot');
    expect(lists(p).normal).toEqual(['cat']);
    expect(p.output).toBe('cat::1.5 --no ugly');
  });

  it('ignores the same or an unknown dialect', () => {
    const p = fresh();
    expect(setParser(p, 'webui')).toBe(p);
    expect(setParser(p, 'midjourney' as Dialect)).toBe(p);
  });
});

describe('rendering the output', () => {
  it('leaves disabled words out and keeps list order normal, style, quality, command', () => {
    let p = addWords(fresh(), [
      word('--ar 2:3', { type: 'command', subType: 'command' }),
      word('best quality', { subType: 'quality' }),
      word('ink', { subType: 'style' }),
      word('cat'),
      word('dog'),
    ]);
    expect(p.output).toBe('cat, dog, ink, best quality, --ar 2:3');
    p = toggleWord(p, 'dog');
    expect(p.output).toBe('cat, ink, best quality, --ar 2:3');
    p = toggleList(toggleList(p, 'g1', 'normal'), 'g1', 'style');
    expect(p.output).toBe('best quality, --ar 2:3');
  });

  it('applies the group level as an outer weight in the web-UI dialect', () => {
    let p = setInput(fresh(), '1girl, (smile:1.3), --ar 16:9, --no ugly');
    p = setGroupLv(p, 'g1', 1.2);
    p = addText(addGroup(p), 'sky, sea', { groupId: 'g2' });
    p = setGroupLv(p, 'g2', 0.8);
    expect(p.output).toBe('(1girl, (smile:1.3):1.2), (sky, sea:0.8), --ar 16:9');
    expect(renderPreset(p).negativePrompt).toBe('(ugly:1.2)');
    // The parsers read the wrapper as one weight around the group.
    expect(parsePrompt(p.output, 'webui').words.map((w) => [w.rawText, w.lv])).toEqual([
      ['1girl, (smile:1.3)', 1.2],
      ['sky, sea', 0.8],
      ['--ar 16:9', 1],
    ]);
  });

  it('keeps a trailing backslash from escaping the group weight', () => {
    const p = setGroupLv(addWords(fresh(), [word('a\\')]), 'g1', 1.5);
    expect(p.output).toBe('(a\\ :1.5)');
    expect(parsePrompt(p.output, 'webui').words.map((w) => [w.rawText, w.lv])).toEqual([['a\\', 1.5]]);
  });

  it('multiplies the group level into each word in the bot dialect', () => {
    let p = setInput(fresh('bot'), 'cat::2 dog --ar 16:9 --no ugly');
    p = addText(addGroup(p), 'sky::1.5 sea', { groupId: 'g2' });
    p = setGroupLv(p, 'g2', 2);
    expect(p.output).toBe('cat::2 dog:: sky::3 sea::2 --ar 16:9 --no ugly');
    expect(parsePrompt(p.output, 'bot').words.map((w) => [w.rawText, w.lv])).toEqual([
      ['cat', 2],
      ['dog', 1],
      ['sky', 3],
      ['sea', 2],
      ['--ar 16:9', 1],
    ]);
    p = stepWordLv(p, 'dog', 'up');
    expect(p.output).toBe('cat::2 dog::1.1 sky::3 sea::2 --ar 16:9 --no ugly');
  });

  it('renders an empty preset as empty text', () => {
    expect(renderPreset(createPreset(NOW))).toEqual({ prompt: '', negativePrompt: '' });
    expect(renderPreset(fresh('bot'))).toEqual({ prompt: '', negativePrompt: '' });
  });

  it('round-trips through the parser for a single group at level 1', () => {
    const text = 'masterpiece, (cat:1.3), [[dog]], <lora:foo:0.8>, [a:b:0.5]';
    const p = setInput(fresh(), text);
    expect(p.output).toBe(text);
    expect(setInput(fresh(), p.output).groups).toEqual(p.groups);
  });
});

describe('importing a prompts list', () => {
  it('puts each prompt in a group of its own, the first in the empty first group', () => {
    const p = importPrompts(fresh(), ['cat, dog', '  ', 'sky, --no rain']);
    expect(p.groups.map((g) => g.id)).toEqual(['g1', 'g2']);
    expect(lists(p, 0).normal).toEqual(['cat', 'dog']);
    expect(lists(p, 1)).toMatchObject({ normal: ['sky'], negative: ['rain'] });
    expect(p.output).toBe('cat, dog, sky');
  });

  it('takes the prompts URL parameter end to end', () => {
    const url = new URL(`https://easel.test/en/prompt?prompts=${encodeURIComponent('["cat, (dog:1.2)", {"text": "sky"}]')}`);
    const { prompts, cleanedUrl } = readPromptsParam(url);
    const p = importPrompts(fresh(), prompts ?? []);
    expect(p.output).toBe('cat, (dog:1.2), sky');
    expect(cleanedUrl.search).toBe('');
  });

  it('appends groups after existing words', () => {
    const p = importPrompts(setInput(fresh(), 'a'), ['b']);
    expect(p.groups).toHaveLength(2);
    expect(lists(p, 1).normal).toEqual(['b']);
    expect(importPrompts(p, [])).toBe(p);
  });
});

describe('parseForEditor', () => {
  it('logs an unsupported dialect (old stored data) and gives an empty result', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(parseForEditor('a, b', 'sd' as Dialect)).toEqual({ words: [], egWords: [], params: {} });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(parseForEditor('a, b', 'webui').words).toHaveLength(2);
  });
});
