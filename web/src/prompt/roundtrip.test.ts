// Round trip of the TypeScript parsers on generated prompt-like text (a
// seeded generator, so failures reproduce): parse(render(parse(x))) equals
// parse(x) in both dialects, and no input throws.

import { describe, expect, it } from 'vitest';

import { DIALECTS, parsePrompt, renderPrompt } from './index';

const ALPHABET = [
  'a', 'b', 'c', ' ', '(', ')', '[', ']', '<', '>', ':', '::', ',', '\\', '\n', '\r', '--', '\u2014',
  '\uFF0C', '\u3000', '0', '1', '2', '.', '+', '-', 'lora', '猫', '🐱', '\uFEFF', '\u0085',
];

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('prompt round trip on generated text', () => {
  for (const dialect of DIALECTS) {
    it(`${dialect}: parse(render(parse(x))) == parse(x)`, () => {
      const next = rng(dialect === 'webui' ? 1 : 2);
      for (let n = 0; n < 3000; n += 1) {
        const len = Math.floor(next() * 30);
        let text = '';
        for (let i = 0; i < len; i += 1) text += ALPHABET[Math.floor(next() * ALPHABET.length)] ?? '';
        const first = parsePrompt(text, dialect);
        const rendered = renderPrompt(first.words, first.egWords, first.params, dialect);
        const second = parsePrompt(rendered, dialect);
        expect(second, `${JSON.stringify(text)} -> ${JSON.stringify(rendered)}`).toStrictEqual(first);
        expect(renderPrompt(second.words, second.egWords, second.params, dialect)).toBe(rendered);
      }
    });
  }
});

describe('deep nesting', () => {
  // Peeling used to re-slice and re-match every inner text (quadratic); the
  // parser now peels through ranges of one bracket match (see Bracketed).
  it('parses 100 000 nested brackets in linear time', () => {
    const n = 50_000;
    const start = performance.now();
    const round = parsePrompt(`${'('.repeat(n)}x${')'.repeat(n)}`, 'webui').words[0];
    expect([round?.rawText, round?.lv]).toStrictEqual(['x', 10000]);
    const square = parsePrompt(`${'['.repeat(n)}x${']'.repeat(n)}`, 'webui').words[0];
    expect([square?.rawText, square?.lv]).toStrictEqual(['x', 0]);
    const weighted = parsePrompt(`${'('.repeat(n)}x${':1)'.repeat(n)}`, 'webui').words[0];
    expect([weighted?.rawText, weighted?.lv]).toStrictEqual(['x', 1]);
    expect(performance.now() - start).toBeLessThan(5000);
  });
});
