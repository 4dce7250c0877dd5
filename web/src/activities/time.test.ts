import { describe, expect, it } from 'vitest';
import { activityStatus, clockOf, countdown, countdownTarget, currentPeriodIndex, periodStatus } from './time';

const H = 3_600_000;
const T0 = Date.UTC(2026, 10, 27, 0, 0, 0);
const week = (i: number) => ({ start: T0 + i * 168 * H, end: T0 + (i + 1) * 168 * H });

describe('periodStatus (start inclusive, end exclusive)', () => {
  it.each([
    [T0 - 1, 'upcoming'],
    [T0, 'live'],
    [T0 + 168 * H - 1, 'live'],
    [T0 + 168 * H, 'closed'],
  ] as const)('at %i: %s', (now, status) => {
    expect(periodStatus(week(0), now)).toBe(status);
  });

  it('keeps the server’s closed and judged: an operator may close a period early', () => {
    expect(periodStatus({ ...week(0), status: 'closed' }, T0 + H)).toBe('closed');
    expect(periodStatus({ ...week(0), status: 'judged' }, T0 + H)).toBe('judged');
    // A period the server last called live turns over on the clock.
    expect(periodStatus({ ...week(0), status: 'live' }, T0 + 168 * H)).toBe('closed');
    expect(periodStatus({ ...week(0), status: 'upcoming' }, T0)).toBe('live');
  });
});

describe('activityStatus', () => {
  const periods = [week(0), { start: T0 + 200 * H, end: T0 + 300 * H }];
  it('is upcoming before the first start, live until the last end (gaps too), then ended', () => {
    expect(activityStatus(periods, T0 - 1)).toBe('upcoming');
    expect(activityStatus(periods, T0)).toBe('live');
    expect(activityStatus(periods, T0 + 180 * H)).toBe('live');
    expect(activityStatus(periods, T0 + 300 * H - 1)).toBe('live');
    expect(activityStatus(periods, T0 + 300 * H)).toBe('ended');
    expect(activityStatus([], T0)).toBe('ended');
  });

  it('ends when every period was closed early, even before its end', () => {
    const closed = periods.map((p) => ({ ...p, status: 'closed' as const }));
    expect(activityStatus(closed, T0 + H)).toBe('ended');
    expect(activityStatus([{ ...periods[0]!, status: 'judged' as const }, periods[1]!], T0 + H)).toBe('live');
  });
});

describe('currentPeriodIndex', () => {
  const periods = [week(0), week(1), week(2)];
  it('the live one, else the next to start, else the last to end', () => {
    expect(currentPeriodIndex(periods, T0 + 170 * H)).toBe(1);
    expect(currentPeriodIndex(periods, T0 - 5)).toBe(0);
    expect(currentPeriodIndex(periods, T0 + 10_000 * H)).toBe(2);
    expect(currentPeriodIndex([], T0)).toBe(-1);
    // Period 0 closed early: the next one to start is shown.
    expect(currentPeriodIndex([{ ...week(0), status: 'closed' }, week(1)], T0 + H)).toBe(1);
  });
});

describe('countdown', () => {
  it('counts to the live period’s end, else the next start, else nothing', () => {
    expect(countdownTarget([week(0), week(1)], T0 + H)).toEqual({ kind: 'ends', at: T0 + 168 * H });
    expect(countdownTarget([week(1)], T0)).toEqual({ kind: 'starts', at: T0 + 168 * H });
    expect(countdownTarget([week(0)], T0 + 168 * H)).toBeNull();
    expect(countdownTarget([{ ...week(0), status: 'closed' }], T0 + H)).toBeNull();
  });

  it('splits whole seconds left, never below zero', () => {
    const left = ((2 * 24 + 4) * 3600 + 5 * 60 + 6) * 1000 + 999;
    expect(countdown(T0 + left, T0)).toEqual({ days: 2, hours: 4, minutes: 5, seconds: 6 });
    expect(clockOf(countdown(T0 + left, T0))).toBe('04:05:06');
    expect(countdown(T0, T0 + 5000)).toEqual({ days: 0, hours: 0, minutes: 0, seconds: 0 });
    expect(clockOf(countdown(T0 + 59_000, T0))).toBe('00:00:59');
  });
});
