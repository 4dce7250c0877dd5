import { describe, expect, it, vi } from 'vitest';
import { PROMPTS_PARAM, readPromptsParam } from './url';

function withPrompts(value: string, rest = 'id=7'): URL {
  const url = new URL(`https://easel.test/en/prompt?${rest}#top`);
  url.searchParams.set(PROMPTS_PARAM, value);
  return url;
}

describe('the prompts query parameter (spec 1 §2)', () => {
  it.each([
    ['strings', '["1girl, smile","cat"]', ['1girl, smile', 'cat']],
    ['objects with text', '[{"text":"cat","lv":1.2},{"text":"dog"}]', ['cat', 'dog']],
    ['mixed', '["a",{"text":"b"}]', ['a', 'b']],
    ['empty array', '[]', []],
    ['a single string', '"just one"', ['just one']],
  ])('reads %s', (_label, json, want) => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { prompts, cleanedUrl } = readPromptsParam(withPrompts(json));
    expect(prompts).toEqual(want);
    expect(cleanedUrl.searchParams.has(PROMPTS_PARAM)).toBe(false);
    expect(warn).not.toHaveBeenCalled();
  });

  it('removes only the prompts parameter and keeps the rest of the URL', () => {
    const url = withPrompts('["a"]', 'id=7&model_ver_no=3');
    const { cleanedUrl } = readPromptsParam(url);
    expect(cleanedUrl.pathname).toBe('/en/prompt');
    expect(cleanedUrl.searchParams.get('id')).toBe('7');
    expect(cleanedUrl.searchParams.get('model_ver_no')).toBe('3');
    expect(cleanedUrl.hash).toBe('#top');
    // The input URL is not modified.
    expect(url.searchParams.get(PROMPTS_PARAM)).toBe('["a"]');
  });

  it('is read once: reading the cleaned URL again finds nothing', () => {
    const first = readPromptsParam(withPrompts('["a"]'));
    expect(first.prompts).toEqual(['a']);
    const second = readPromptsParam(first.cleanedUrl);
    expect(second.prompts).toBeNull();
    expect(second.cleanedUrl.href).toBe(first.cleanedUrl.href);
  });

  it('returns null without warning when the parameter is absent', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const url = new URL('https://easel.test/en/prompt?id=1');
    const { prompts, cleanedUrl } = readPromptsParam(url);
    expect(prompts).toBeNull();
    expect(cleanedUrl.href).toBe(url.href);
    expect(cleanedUrl).not.toBe(url);
    expect(warn).not.toHaveBeenCalled();
  });

  it.each([
    ['malformed JSON', '["a",'],
    ['not JSON at all', 'cat, dog'],
    ['a number', '42'],
    ['an object', '{"text":"a"}'],
    ['null', 'null'],
    ['empty', ''],
  ])('logs and ignores %s, and still removes the parameter', (_label, value) => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { prompts, cleanedUrl } = readPromptsParam(withPrompts(value));
    expect(prompts).toBeNull();
    expect(cleanedUrl.searchParams.has(PROMPTS_PARAM)).toBe(false);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('skips unusable elements with one warning', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { prompts } = readPromptsParam(withPrompts('["a", 1, null, {"text": 2}, ["b"], {"text": "c"}]'));
    expect(prompts).toEqual(['a', 'c']);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('decodes percent-encoded JSON as a browser link carries it', () => {
    const url = new URL(`https://easel.test/en/prompt?prompts=${encodeURIComponent('["猫, (smile:1.2)"]')}`);
    expect(readPromptsParam(url).prompts).toEqual(['猫, (smile:1.2)']);
  });
});
