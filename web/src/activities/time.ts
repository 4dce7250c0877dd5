// The activities' clock arithmetic, pure and tested with fixed times: a
// period's status at a moment (the server's word for closed and judged
// periods, the clock for the rest, so a page left open turns over on time),
// the activity's status, the period to show first and the countdown to the
// next boundary. Times are milliseconds since the epoch, as on the wire.

/** A period's status (ACT_API.md): `closed` = ended or closed early, not judged yet. */
export type PeriodStatus = 'upcoming' | 'live' | 'closed' | 'judged';
/** An activity's status: before its first period, until its last period's end, after. */
export type ActivityStatus = 'upcoming' | 'live' | 'ended';

/** A period as far as time goes: half-open [start, end), in milliseconds; `status` as the server last said. */
export interface Span {
  start: number;
  end: number;
  status?: PeriodStatus | undefined;
}

/**
 * The status of a period at `now`. A period the server called closed or judged
 * stays so (an operator may close one early); otherwise the clock decides:
 * upcoming before its start, live until its end (exclusive), closed after.
 */
export function periodStatus(span: Span, now: number): PeriodStatus {
  if (span.status === 'judged' || span.status === 'closed') return span.status;
  if (now < span.start) return 'upcoming';
  if (now < span.end) return 'live';
  return 'closed';
}

/**
 * An activity's status: upcoming while every period is ahead, ended once every
 * period is over (ended or closed early by an operator), live in between
 * (between two periods too). No periods: ended.
 */
export function activityStatus(periods: readonly Span[], now: number): ActivityStatus {
  const statuses = periods.map((p) => periodStatus(p, now));
  if (statuses.every((s) => s === 'closed' || s === 'judged')) return 'ended';
  if (statuses.every((s) => s === 'upcoming')) return 'upcoming';
  return 'live';
}

/** The index of the period to show first: the live one, else the next to start, else the last to end (-1 for none). */
export function currentPeriodIndex(periods: readonly Span[], now: number): number {
  const live = periods.findIndex((p) => periodStatus(p, now) === 'live');
  if (live >= 0) return live;
  let next = -1;
  periods.forEach((p, i) => {
    const best = periods[next];
    if (p.start > now && (best === undefined || p.start < best.start)) next = i;
  });
  if (next >= 0) return next;
  let last = -1;
  periods.forEach((p, i) => {
    const best = periods[last];
    if (best === undefined || p.end >= best.end) last = i;
  });
  return last;
}

/** What a countdown counts to: the live period's end, else the next period's start; null when nothing is ahead. */
export function countdownTarget(periods: readonly Span[], now: number): { kind: 'ends' | 'starts'; at: number } | null {
  const live = periods.find((p) => periodStatus(p, now) === 'live');
  if (live !== undefined) return { kind: 'ends', at: live.end };
  const next = periods.filter((p) => periodStatus(p, now) === 'upcoming').sort((a, b) => a.start - b.start)[0];
  return next === undefined ? null : { kind: 'starts', at: next.start };
}

export interface Countdown {
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

/** The whole seconds left until `target` split into days, hours, minutes and seconds (all zero once reached). */
export function countdown(target: number, now: number): Countdown {
  let left = Math.max(0, Math.floor((target - now) / 1000));
  const days = Math.floor(left / 86_400);
  left -= days * 86_400;
  const hours = Math.floor(left / 3_600);
  left -= hours * 3_600;
  const minutes = Math.floor(left / 60);
  return { days, hours, minutes, seconds: left - minutes * 60 };
}

const two = (n: number) => String(n).padStart(2, '0');

/** A countdown's clock part: `04:05:06` (the days are said apart, translated). */
export function clockOf(c: Countdown): string {
  return `${two(c.hours)}:${two(c.minutes)}:${two(c.seconds)}`;
}

/** A period's dates for a label, in the viewer's time zone (`locale` as for Intl). */
export function formatSpan(span: Pick<Span, 'start' | 'end'>, locale: string, timeZone?: string): string {
  const f = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', ...(timeZone ? { timeZone } : {}) });
  return `${f.format(new Date(span.start))} – ${f.format(new Date(span.end))}`;
}
