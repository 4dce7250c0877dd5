// The operator's activity form as pure functions: the draft of a new or an
// existing activity, the `datetime-local` inputs (the operator's time zone)
// to and from milliseconds, the prize list typed as "500, 200, 100", and the
// checks the form makes before sending (the server checks again).
import type { ActivityAdmin, ActivityDraft, ContributionType } from './types';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A new activity: one week-long period from the next full hour, pictures only, votes, prizes 500/200/100. */
export function emptyDraft(now: number): ActivityDraft {
  const start = Math.ceil(now / HOUR) * HOUR;
  return {
    title: '',
    rules: '',
    cover: null,
    periods: [{ start, end: start + 7 * DAY }],
    types: ['work'],
    prizes: [500, 200, 100],
    judging: 'votes',
    daily: false,
    max_entries: 3,
    excellent_count: 3,
  };
}

/** The form's draft of an existing activity. */
export function draftOf(a: ActivityAdmin): ActivityDraft {
  return {
    title: a.title,
    rules: a.rules,
    cover: a.cover?.url ?? null,
    periods: a.periods.map((p) => ({ start: p.start, end: p.end })),
    types: [...a.types],
    prizes: [...a.prizes],
    judging: a.judging,
    daily: a.daily,
    max_entries: a.max_entries,
    excellent_count: a.excellent_count,
  };
}

const two = (n: number) => String(n).padStart(2, '0');

/** Milliseconds as a `datetime-local` value (`2026-11-27T09:30`) in this browser's time zone. */
export function toLocalInput(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** A `datetime-local` value as milliseconds (this browser's time zone), or null when it is not one. */
export function fromLocalInput(value: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value.trim());
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map((x) => (x === undefined ? 0 : Number(x)));
  const d = new Date(year ?? 0, (month ?? 1) - 1, day ?? 1, hour ?? 0, minute ?? 0, second ?? 0);
  // Reject dates the Date constructor rolled over (2026-02-31).
  if (d.getFullYear() !== year || d.getMonth() !== (month ?? 1) - 1 || d.getDate() !== day) return null;
  return d.getTime();
}

/** "500, 200, 100" as [500, 200, 100]; null when a part is not a whole number of credits 0..1,000,000 (empty: no prizes). */
export function parsePrizes(text: string): number[] | null {
  const parts = text
    .split(/[\s,;]+/)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const prizes = parts.map((p) => (/^\d{1,7}$/.test(p) ? Number(p) : NaN));
  return prizes.every((p) => Number.isInteger(p) && p >= 0 && p <= 1_000_000) && prizes.length <= 50 ? prizes : null;
}

export function formatPrizes(prizes: readonly number[]): string {
  return prizes.join(', ');
}

/** What is wrong with a draft, as message-key suffixes (`activities.admin.problem.{x}`); empty when it may be sent. */
export type DraftProblem = 'title' | 'types' | 'periods' | 'periodOrder' | 'daily' | 'entries';

export function draftProblems(d: ActivityDraft): DraftProblem[] {
  const problems: DraftProblem[] = [];
  const title = d.title.trim();
  if (title === '' || [...title].length > 100) problems.push('title');
  if (d.types.length === 0) problems.push('types');
  if (d.periods.length === 0 || d.periods.some((p) => !(p.start < p.end))) problems.push('periods');
  else if (d.periods.some((p, i) => i > 0 && p.start < (d.periods[i - 1]?.end ?? -Infinity))) problems.push('periodOrder');
  if (d.daily && (d.periods.length !== 1 || d.periods.some((p) => p.end - p.start > DAY))) problems.push('daily');
  if (!(d.max_entries >= 1 && d.max_entries <= 100) || !(d.excellent_count >= 1 && d.excellent_count <= 100)) problems.push('entries');
  return problems;
}

/** Toggles one contribution type in a list, keeping the spec's order. */
export function toggleType(types: readonly ContributionType[], type: ContributionType, on: boolean, order: readonly ContributionType[]): ContributionType[] {
  const set = new Set(types);
  if (on) set.add(type);
  else set.delete(type);
  return order.filter((t) => set.has(t));
}

/** A period appended after the last: as long as the last, starting at its end (a week from now when none). */
export function nextPeriod(periods: readonly { start: number; end: number }[], now: number): { start: number; end: number } {
  const last = periods[periods.length - 1];
  if (last === undefined) {
    const start = Math.ceil(now / HOUR) * HOUR;
    return { start, end: start + 7 * DAY };
  }
  return { start: last.end, end: last.end + (last.end - last.start) };
}
