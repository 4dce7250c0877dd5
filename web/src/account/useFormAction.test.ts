import { describe, expect, it } from 'vitest';
import { runAction } from './useFormAction';

function recorder() {
  const log: string[] = [];
  return {
    log,
    set: {
      pending: (p: boolean) => log.push(`pending:${p}`),
      error: (e: unknown) => log.push(`error:${e === null ? 'none' : JSON.stringify(e)}`),
    },
  };
}

describe('runAction', () => {
  it('marks pending around the action and clears the error first', async () => {
    const r = recorder();
    await runAction({ current: false }, r.set, async () => {
      r.log.push('action');
    });
    expect(r.log).toEqual(['pending:true', 'error:none', 'action', 'pending:false']);
  });

  it('keeps a failure as the message and ends pending', async () => {
    const r = recorder();
    await runAction({ current: false }, r.set, () => Promise.reject(new Error('boom')));
    expect(r.log[0]).toBe('pending:true');
    expect(r.log.some((l) => l.startsWith('error:') && l !== 'error:none')).toBe(true);
    expect(r.log.at(-1)).toBe('pending:false');
  });

  it('ignores a second submit while one runs', async () => {
    const r = recorder();
    const busy = { current: false };
    let release = () => {};
    const first = runAction(busy, r.set, () => new Promise<void>((res) => (release = res)));
    let second = false;
    await runAction(busy, r.set, async () => {
      second = true;
    });
    release();
    await first;
    expect(second).toBe(false);
    expect(busy.current).toBe(false);
  });
});
