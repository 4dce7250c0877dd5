import { describe, expect, it } from 'vitest';
import type { CheckinDone, CheckinInfo } from './model';
import {
  awardTitle,
  awardTotal,
  cellState,
  dayOfMonth,
  flameLevel,
  flames,
  mergeAwards,
  parseAward,
  parseAwardPush,
  parseInfo,
  parseSchedule,
  toastOf,
  untilNext,
  zoneChange,
  zoneChoices,
} from './model';

const info: CheckinInfo = {
  checked_today: false,
  streak: 2,
  today: '2026-11-27',
  time_zone: 'Asia/Shanghai',
  reward_today: 10,
  next_at: 1_000,
  calendar: [
    { date: '2026-11-25', streak_day: 1, reward: 5, checked: true, today: false },
    { date: '2026-11-26', streak_day: 2, reward: 5, checked: true, today: false },
    { date: '2026-11-27', streak_day: 3, reward: 10, checked: false, today: true },
  ],
  total_days: 2,
  temp_coins_popup: 0,
  time_zone_pinned: true,
  time_zone_change_at: 0,
};

describe('check-in model', () => {
  it('reads the info answer and refuses what is not one', () => {
    expect(parseInfo(JSON.parse(JSON.stringify(info)))).toEqual(info);
    expect(parseInfo(null)).toBeNull();
    expect(parseInfo({ streak: 1 })).toBeNull();
    const partial = parseInfo({ checked_today: true, today: '2026-11-27', calendar: [{ date: 3 }, 'x'] });
    expect(partial?.calendar).toEqual([{ date: '', streak_day: 0, reward: 0, checked: false, today: false }]);
    expect(partial?.time_zone).toBe('UTC');
    expect(partial?.time_zone_pinned).toBe(false);
    expect(partial?.time_zone_change_at).toBe(0);
  });

  it('says whether the zone can change: free before it is pinned, then once per 30 days', () => {
    expect(zoneChange({ time_zone_pinned: false, time_zone_change_at: 0 }, 5)).toEqual({ kind: 'free' });
    expect(zoneChange({ time_zone_pinned: true, time_zone_change_at: 0 }, 5)).toEqual({ kind: 'once' });
    expect(zoneChange({ time_zone_pinned: true, time_zone_change_at: 10 }, 5)).toEqual({ kind: 'wait', until: 10 });
    expect(zoneChange({ time_zone_pinned: true, time_zone_change_at: 10 }, 10)).toEqual({ kind: 'once' });
  });

  it('offers the supported zones with UTC, the current and the device zones, sorted, once each', () => {
    expect(zoneChoices('Asia/Shanghai', 'Europe/Paris', () => ['Europe/Paris', 'America/New_York'])).toEqual(['America/New_York', 'Asia/Shanghai', 'Europe/Paris', 'UTC']);
    expect(zoneChoices('UTC', null, () => [])).toEqual(['UTC']);
  });

  it('shows one flame a day up to a week', () => {
    expect([0, 1, 3, 7, 30, -2].map(flames)).toEqual([0, 1, 3, 7, 7, 0]);
    expect([0, 1, 2, 3, 6, 7, 100].map(flameLevel)).toEqual(['none', 'warm', 'warm', 'hot', 'hot', 'blazing', 'blazing']);
  });

  it('labels calendar cells', () => {
    expect(info.calendar.map(cellState)).toEqual(['checked', 'checked', 'today']);
    expect(dayOfMonth('2026-11-07')).toBe('7');
    expect(dayOfMonth('nope')).toBe('');
  });

  it('toasts the credits a check-in earned, or that it was done already', () => {
    const done: CheckinDone = { granted: true, reward: 10, balance: 110, info };
    expect(toastOf(done)).toEqual({ key: 'checkin.toast', n: 10 });
    expect(toastOf({ ...done, granted: false })).toEqual({ key: 'checkin.already' });
    expect(toastOf({ ...done, reward: 0 })).toEqual({ key: 'checkin.already' });
  });

  it('counts down to the next day', () => {
    expect(untilNext(3_600_000 + 5 * 60_000, 0)).toBe('1:05');
    expect(untilNext(30_000, 0)).toBe('0:01');
    expect(untilNext(0, 10)).toBe('0:00');
  });

  it('queues awards once each, oldest first, from the list and from pushes', () => {
    const a = { key: 'award:first_publish:u', trigger: 'first_publish' as const, title: 'First', amount: 20, at: 2 };
    const b = { key: 'award:first_post_of_day:u:2026-11-27', trigger: 'first_post_of_day' as const, title: 'Daily', amount: 20, at: 1 };
    expect(mergeAwards([a], [b, a])).toEqual([b, a]);
    expect(awardTotal([a, b])).toBe(40);
    expect(parseAwardPush({ kind: 'award.granted', award: a })).toEqual(a);
    expect(parseAwardPush({ kind: 'like', award: a })).toBeNull();
    expect(parseAward({ ...a, trigger: 'first_dance' })).toBeNull();
    expect(parseAward({ ...a, key: '' })).toBeNull();
  });

  it("translates shipped titles and keeps the operator's own", () => {
    const tr = (x: string) => `T(${x})`;
    expect(awardTitle({ title: 'First post of the day', trigger: 'first_post_of_day' }, tr)).toBe('T(first_post_of_day)');
    expect(awardTitle({ title: '', trigger: 'first_follow' }, tr)).toBe('T(first_follow)');
    expect(awardTitle({ title: 'Hello friend', trigger: 'first_follow' }, tr)).toBe('Hello friend');
  });

  it('reads the operator schedule text within the server bounds', () => {
    expect(parseSchedule('5, 5, 10 10;15\n30')).toEqual([5, 5, 10, 10, 15, 30]);
    expect(parseSchedule('0')).toEqual([0]);
    expect(parseSchedule('')).toBeNull();
    expect(parseSchedule('5, -1')).toBeNull();
    expect(parseSchedule('1.5')).toBeNull();
    expect(parseSchedule('100001')).toBeNull();
    expect(parseSchedule(Array(32).fill('1').join(','))).toBeNull();
    expect(parseSchedule(Array(31).fill('1').join(','))).toHaveLength(31);
  });
});
