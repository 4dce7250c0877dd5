import { describe, expect, it } from 'vitest';
import { isFinal, parseRagJob, pollRagJob, RAG_POLL_MS, RAG_TIMEOUT_MS } from './rag';
import type { RagJob } from './rag';

const job = (over: Partial<RagJob> = {}): RagJob => ({
  id: 'j',
  state: 'parsing',
  percent: 10,
  cards_made: 0,
  cards_total: 0,
  card_ids: [],
  cards_refused: 0,
  file_name: 'lore.md',
  truncated: false,
  error: null,
  ...over,
});

describe('parseRagJob', () => {
  it('decodes the server view tolerantly', () => {
    expect(
      parseRagJob({ id: 'a', state: 'saving', percent: '70', cards_made: 2, cards_total: 3, card_ids: ['x', 5, 'y'], file_name: 'f.md', extra: 1 }),
    ).toEqual({ id: 'a', state: 'saving', percent: 70, cards_made: 2, cards_total: 3, card_ids: ['x', 'y'], cards_refused: 0, file_name: 'f.md', truncated: false, error: null });
    expect(parseRagJob({ id: 'a', state: 'failed', percent: 140, error: { code: 40703, key: 'ragPdfEncrypted', msg: 'pw' } })).toMatchObject({
      percent: 100,
      error: { code: 40703, key: 'ragPdfEncrypted', msg: 'pw' },
    });
    expect(parseRagJob({ id: 'a', state: 'unknown' })).toBeNull();
    expect(parseRagJob({ state: 'done' })).toBeNull();
    expect(parseRagJob(null)).toBeNull();
    expect(isFinal(job({ state: 'done' }))).toBe(true);
    expect(isFinal(job({ state: 'chunking' }))).toBe(false);
  });
});

describe('pollRagJob', () => {
  function clock() {
    let t = 0;
    return { now: () => t, sleep: async (ms: number) => void (t += ms) };
  }

  it('polls until the job is final, handing each answer on', async () => {
    const answers = [job({ state: 'queued', percent: 0 }), job({ state: 'saving', percent: 70 }), job({ state: 'done', percent: 100, card_ids: ['a'] })];
    const c = clock();
    const seen: number[] = [];
    const end = await pollRagJob('j', { fetch: async () => answers.shift() ?? null, ...c }, (j) => seen.push(j.percent), () => false);
    expect(end).toMatchObject({ kind: 'final', job: { state: 'done' } });
    expect(seen).toEqual([0, 70, 100]);
    expect(c.now()).toBe(2 * RAG_POLL_MS);
  });

  it('gives up after 600 s with the last job seen, and survives a failed poll', async () => {
    const c = clock();
    let calls = 0;
    const end = await pollRagJob(
      'j',
      {
        fetch: async () => {
          calls += 1;
          if (calls === 2) throw new Error('network');
          return job();
        },
        ...c,
      },
      () => {},
      () => false,
    );
    expect(end).toEqual({ kind: 'timeout', job: job() });
    expect(c.now()).toBe(RAG_TIMEOUT_MS);
    expect(calls).toBe(RAG_TIMEOUT_MS / RAG_POLL_MS + 1);
  });

  it('stops when cancelled and when the job is missing', async () => {
    const c = clock();
    let n = 0;
    const end = await pollRagJob('j', { fetch: async () => job(), ...c }, () => {}, () => ++n > 3);
    expect(end).toEqual({ kind: 'cancelled' });
    const missing = Object.assign(new Error('missing'), { code: 40400 });
    await expect(pollRagJob('j', { fetch: async () => Promise.reject(missing), ...c }, () => {}, () => false)).rejects.toBe(missing);
  });
});
