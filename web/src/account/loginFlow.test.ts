import { describe, expect, it } from 'vitest';
import type { LoginData } from '../api/types';
import { loginOutcome, REDIRECT_PATH_KEY, takeRedirectPath } from './loginFlow';

function data(status: number): LoginData {
  return { token: 'tok', account: { id: 'a', name: 'Ada', email: 'a@b.co', create_at: 1, status, device_code: 'd' } };
}

describe('loginOutcome (spec 2 §4)', () => {
  it('status 1 logs in', () => {
    expect(loginOutcome(data(1))).toEqual({ kind: 'logged-in', token: 'tok', account: data(1).account });
  });
  it('status 2 is refused with AccountDisabled', () => {
    expect(loginOutcome(data(2))).toEqual({ kind: 'refused', message: 'AccountDisabled' });
  });
  it('status 3 moves to the final step with a temporary token', () => {
    expect(loginOutcome(data(3))).toEqual({ kind: 'final-step', tempToken: 'tok', account: data(3).account });
  });
  it('an unknown status is refused', () => {
    expect(loginOutcome(data(9))).toEqual({ kind: 'refused', message: 'LoginFailed' });
  });
});

describe('takeRedirectPath', () => {
  function storage(value: string | null) {
    const map = new Map<string, string>();
    if (value !== null) map.set(REDIRECT_PATH_KEY, value);
    return {
      map,
      getItem: (k: string) => map.get(k) ?? null,
      removeItem: (k: string) => void map.delete(k),
    };
  }

  it.each([
    [null, null],
    ['', null],
    ['/', null],
    ['  ', null],
    ['/en/create?x=1', '/en/create?x=1'],
    ['//evil.example/', null],
    ['https://evil.example/', null],
    ['/\\evil.example', null],
  ])('%j -> %j', (stored, expected) => {
    const s = storage(stored);
    expect(takeRedirectPath(s)).toBe(expected);
    expect(s.map.has(REDIRECT_PATH_KEY)).toBe(false);
  });
});
