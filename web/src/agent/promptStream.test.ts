// Runs the shared prompt-stream vectors (protocol/tests/vectors/prompt-stream/
// *.json, also run by protocol/tests/prompt_stream_vectors.rs): the parts must
// equal the expected JSON exactly; every prefix of every case, and of seeded
// random streams, must parse monotonically (every part but the last complete,
// a complete part identical at the same index as more text arrives).

import { describe, expect, it } from 'vitest';

import { collapseBlank, completePrompts, parsePromptStream, type PromptPart } from './promptStream';

interface Vector {
  name: string;
  input: string;
  expected: PromptPart[];
}

const files = import.meta.glob<Vector[]>('../../../protocol/tests/vectors/prompt-stream/*.json', {
  eager: true,
  import: 'default',
});

const entries = Object.entries(files).sort(([a], [b]) => a.localeCompare(b));

/** Prefixes at every code point boundary (Rust cuts at char boundaries too). */
function prefixes(text: string): string[] {
  const out: string[] = [];
  let at = 0;
  for (const ch of text) {
    out.push(text.slice(0, at));
    at += ch.length;
  }
  out.push(text);
  return out;
}

function checkMonotone(short: PromptPart[], long: PromptPart[]): void {
  short.forEach((part, i) => {
    if (i + 1 < short.length) expect(part.isComplete).toBe(true);
    if (part.isComplete) expect(long[i]).toStrictEqual(part);
  });
}

function checkShape(text: string, parts: PromptPart[]): void {
  for (const p of parts) {
    if (p.type === 'normal') expect(p.displayText).not.toBe('');
    expect(p.displayText).toBe(collapseBlank(p.displayText));
    if (p.type === 'prompt') expect(p.text.startsWith('"""')).toBe(true);
    if (p.type === 'prompt' && p.isComplete) expect(p.displayText).not.toBe('');
    expect(text.includes(p.text)).toBe(true);
  }
}

function checkStream(text: string): void {
  const full = parsePromptStream(text);
  let previous: PromptPart[] | undefined;
  for (const prefix of prefixes(text)) {
    const parts = parsePromptStream(prefix);
    checkShape(prefix, parts);
    checkMonotone(parts, full);
    if (previous !== undefined) checkMonotone(previous, parts);
    previous = parts;
  }
}

describe('shared prompt-stream vectors', () => {
  it('are loaded (at least 40 cases)', () => {
    expect(entries.flatMap(([, cases]) => cases).length).toBeGreaterThanOrEqual(40);
  });

  for (const [path, cases] of entries) {
    describe(path.split('/').at(-1) ?? path, () => {
      for (const c of cases) {
        it(c.name, () => {
          expect(parsePromptStream(c.input)).toStrictEqual(c.expected);
          checkStream(c.input);
        });
      }
    });
  }
});

/** mulberry32: a small seeded generator so failures reproduce. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['"""', '"', '""', ' ', '\r\n', '\t', '\u3000', 'é', '猫', '🎨', 'cat', 'a', 'fox, ', '\u0085'];

describe('random streams', () => {
  for (let seed = 1; seed <= 200; seed += 1) {
    it(`seed ${seed} is monotone`, () => {
      const next = rng(seed);
      const count = Math.floor(next() * 24);
      let text = '';
      for (let i = 0; i < count; i += 1) text += PIECES[Math.floor(next() * PIECES.length)];
      checkStream(text);
    });
  }
});

describe('completePrompts', () => {
  it('lists closed, non-blank blocks only', () => {
    expect(completePrompts('A """one""" B """ """ C """two""" D """three')).toStrictEqual(['one', 'two']);
  });
});
