// Runs the shared prompt vectors (protocol/tests/vectors/prompt/*.json, also
// run by protocol/tests/prompt_vectors.rs): the TypeScript parser must give
// exactly the expected result, render the expected text, and round-trip.

import { describe, expect, it } from 'vitest';

import { parsePrompt, renderPrompt, UnsupportedDialectError, type ParseResult } from './index';

interface Vector {
  name: string;
  dialect: string;
  input: string;
  expected: ParseResult;
  render?: string;
}

const files = import.meta.glob<Vector[]>('../../../protocol/tests/vectors/prompt/*.json', {
  eager: true,
  import: 'default',
});

const entries = Object.entries(files).sort(([a], [b]) => a.localeCompare(b));

describe('shared prompt vectors', () => {
  it('are loaded (at least 150 cases, both dialects)', () => {
    const all = entries.flatMap(([, cases]) => cases);
    expect(all.length).toBeGreaterThanOrEqual(150);
    expect(all.some((c) => c.dialect === 'webui')).toBe(true);
    expect(all.some((c) => c.dialect === 'bot')).toBe(true);
  });

  for (const [path, cases] of entries) {
    describe(path.split('/').at(-1) ?? path, () => {
      for (const c of cases) {
        it(c.name, () => {
          const got = parsePrompt(c.input, c.dialect);
          // Compare through JSON so absent optional keys and key order match
          // what the Rust side serialises.
          expect(JSON.parse(JSON.stringify(got))).toStrictEqual(c.expected);
          const text = renderPrompt(got.words, got.egWords, got.params, c.dialect);
          if (c.render !== undefined) expect(text).toBe(c.render);
          expect(parsePrompt(text, c.dialect)).toStrictEqual(got);
        });
      }
    });
  }
});

describe('dialects', () => {
  it('rejects an unsupported dialect with a typed error', () => {
    expect(() => parsePrompt('cat', 'midjourney')).toThrow(UnsupportedDialectError);
    expect(() => renderPrompt([], [], {}, 'WEBUI')).toThrow(UnsupportedDialectError);
  });
});
