import { describe, expect, it } from 'vitest';
import { draftOf, draftProblems, emptyDraft, fromLocalInput, nextPeriod, parsePrizes, toLocalInput, toggleType } from './draft';
import type { ActivityAdmin } from './types';
import { CONTRIBUTION_TYPES } from './types';

const H = 3_600_000;
const T0 = new Date(2026, 10, 27, 9, 30).getTime();

describe('the operator’s form', () => {
  it('datetime-local round-trips in the browser’s zone and refuses non-dates', () => {
    expect(toLocalInput(T0)).toBe('2026-11-27T09:30');
    expect(fromLocalInput('2026-11-27T09:30')).toBe(T0);
    expect(fromLocalInput('2026-11-27T09:30:00')).toBe(T0);
    expect(fromLocalInput('')).toBeNull();
    expect(fromLocalInput('2026-02-31T00:00')).toBeNull();
    expect(fromLocalInput('tomorrow')).toBeNull();
  });

  it('prizes typed as a list', () => {
    expect(parsePrizes('500, 200, 100')).toEqual([500, 200, 100]);
    expect(parsePrizes('500 200;0')).toEqual([500, 200, 0]);
    expect(parsePrizes('')).toEqual([]);
    expect(parsePrizes('500, -1')).toBeNull();
    expect(parsePrizes('1.5')).toBeNull();
    expect(parsePrizes('2000000')).toBeNull();
    expect(parsePrizes(Array(51).fill('1').join(','))).toBeNull();
  });

  it('a new draft starts at the next full hour for a week and is sendable once titled', () => {
    const d = emptyDraft(T0);
    expect(d.periods).toEqual([{ start: T0 + 30 * 60_000, end: T0 + 30 * 60_000 + 168 * H }]);
    expect(draftProblems(d)).toEqual(['title']);
    expect(draftProblems({ ...d, title: 'Autumn' })).toEqual([]);
  });

  it('finds the problems the server would refuse', () => {
    const ok = { ...emptyDraft(T0), title: 'Autumn' };
    expect(draftProblems({ ...ok, title: 'x'.repeat(101) })).toEqual(['title']);
    expect(draftProblems({ ...ok, types: [] })).toEqual(['types']);
    expect(draftProblems({ ...ok, periods: [{ start: T0, end: T0 }] })).toEqual(['periods']);
    expect(draftProblems({ ...ok, periods: [] })).toEqual(['periods']);
    expect(draftProblems({ ...ok, periods: [{ start: T0, end: T0 + 2 * H }, { start: T0 + H, end: T0 + 3 * H }] })).toEqual(['periodOrder']);
    expect(draftProblems({ ...ok, periods: [{ start: T0, end: T0 + H }, { start: T0 + H, end: T0 + 3 * H }] })).toEqual([]);
    expect(draftProblems({ ...ok, daily: true })).toEqual(['daily']);
    expect(draftProblems({ ...ok, daily: true, periods: [{ start: T0, end: T0 + 24 * H }] })).toEqual([]);
    expect(draftProblems({ ...ok, max_entries: 0 })).toEqual(['entries']);
    expect(draftProblems({ ...ok, excellent_count: 101 })).toEqual(['entries']);
  });

  it('toggles types in the spec’s order', () => {
    expect(toggleType(['model_LORA'], 'work', true, CONTRIBUTION_TYPES)).toEqual(['work', 'model_LORA']);
    expect(toggleType(['work', 'model_LORA'], 'work', false, CONTRIBUTION_TYPES)).toEqual(['model_LORA']);
  });

  it('a period added follows the last with its length', () => {
    expect(nextPeriod([{ start: T0, end: T0 + 24 * H }], 0)).toEqual({ start: T0 + 24 * H, end: T0 + 48 * H });
    expect(nextPeriod([], T0).end - nextPeriod([], T0).start).toBe(168 * H);
  });

  it('edits an existing activity from its stored definition', () => {
    const a = {
      id: 'a', title: 'T', rules: '**r**', cover: { url: '/files/c.png' }, periods: [{ index: 0, start: T0, end: T0 + H, status: 'live' }],
      types: ['work'], prizes: [5], judging: 'picks', daily: false, max_entries: 1, excellent_count: 2,
    } as unknown as ActivityAdmin;
    expect(draftOf(a)).toEqual({ title: 'T', rules: '**r**', cover: '/files/c.png', periods: [{ start: T0, end: T0 + H }], types: ['work'], prizes: [5], judging: 'picks', daily: false, max_entries: 1, excellent_count: 2 });
  });
});
