// The check-in widget's and the award popup's pure model (issue 22): the
// server's answers read defensively, the streak's flames, the calendar's
// cells, the toast after a check-in, the award queue fed by the popup call
// and by frame 13 `award.granted`, and the operator's schedule text.

export type AwardTrigger = 'first_post_of_day' | 'first_generation' | 'first_follow' | 'first_publish' | 'profile_completed';

export const AWARD_TRIGGERS: readonly AwardTrigger[] = ['first_post_of_day', 'first_generation', 'first_follow', 'first_publish', 'profile_completed'];

export interface CalendarDay {
  date: string;
  streak_day: number;
  reward: number;
  checked: boolean;
  today: boolean;
}

export interface CheckinInfo {
  checked_today: boolean;
  streak: number;
  today: string;
  time_zone: string;
  reward_today: number;
  next_at: number;
  calendar: CalendarDay[];
  total_days: number;
  temp_coins_popup: number;
  /** The zone is pinned (by a check-in or a choice); changing it is limited. */
  time_zone_pinned: boolean;
  /** When the zone may be changed next (ms); 0: now. */
  time_zone_change_at: number;
}

export interface CheckinDone {
  granted: boolean;
  reward: number;
  balance: number;
  info: CheckinInfo;
}

export interface AwardView {
  key: string;
  trigger: AwardTrigger;
  title: string;
  amount: number;
  at: number;
}

export interface AwardDef {
  trigger: AwardTrigger;
  title: string;
  amount: number;
  enabled: boolean;
}

export interface AwardConfig {
  schedule: number[];
  awards: AwardDef[];
  triggers: { trigger: AwardTrigger; daily: boolean; default: AwardDef }[];
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

export function isTrigger(v: unknown): v is AwardTrigger {
  return typeof v === 'string' && (AWARD_TRIGGERS as readonly string[]).includes(v);
}

/** `activity/checkin/info` (or the `info` of a check-in), or null when it is not one. */
export function parseInfo(v: unknown): CheckinInfo | null {
  if (!isObject(v) || typeof v.checked_today !== 'boolean' || typeof v.today !== 'string') return null;
  const calendar = Array.isArray(v.calendar)
    ? v.calendar.filter(isObject).map((d) => ({
        date: typeof d.date === 'string' ? d.date : '',
        streak_day: num(d.streak_day),
        reward: num(d.reward),
        checked: d.checked === true,
        today: d.today === true,
      }))
    : [];
  return {
    checked_today: v.checked_today,
    streak: num(v.streak),
    today: v.today,
    time_zone: typeof v.time_zone === 'string' ? v.time_zone : 'UTC',
    reward_today: num(v.reward_today),
    next_at: num(v.next_at),
    calendar,
    total_days: num(v.total_days),
    temp_coins_popup: num(v.temp_coins_popup),
    time_zone_pinned: v.time_zone_pinned === true,
    time_zone_change_at: num(v.time_zone_change_at),
  };
}

/** One award of the popup list or of a frame 13 push, or null. */
export function parseAward(v: unknown): AwardView | null {
  if (!isObject(v) || typeof v.key !== 'string' || v.key === '' || !isTrigger(v.trigger)) return null;
  return { key: v.key, trigger: v.trigger, title: typeof v.title === 'string' ? v.title : '', amount: num(v.amount), at: num(v.at) };
}

/** Frame 13's content when it announces an award (`{kind: "award.granted", award}`). */
export function parseAwardPush(content: unknown): AwardView | null {
  if (!isObject(content) || content.kind !== 'award.granted') return null;
  return parseAward(content.award);
}

/** Adds awards to the popup's queue: each once (by its ledger key), oldest first. */
export function mergeAwards(queue: readonly AwardView[], incoming: readonly AwardView[]): AwardView[] {
  const byKey = new Map<string, AwardView>();
  for (const a of [...queue, ...incoming]) if (!byKey.has(a.key)) byKey.set(a.key, a);
  return [...byKey.values()].sort((a, b) => a.at - b.at || a.key.localeCompare(b.key));
}

/** The server's shipped titles: shown translated rather than in English. */
export const SHIPPED_TITLES: Readonly<Record<AwardTrigger, string>> = {
  first_post_of_day: 'First post of the day',
  first_generation: 'First generation',
  first_follow: 'First follow',
  first_publish: 'First publication',
  profile_completed: 'Profile completed',
};

/** An award's title: the operator's own, or the trigger's translated name for a shipped or empty one. */
export function awardTitle(a: Pick<AwardView, 'title' | 'trigger'>, translated: (trigger: AwardTrigger) => string): string {
  return a.title === '' || a.title === SHIPPED_TITLES[a.trigger] ? translated(a.trigger) : a.title;
}

/** Total credits of the awards shown. */
export function awardTotal(list: readonly AwardView[]): number {
  return list.reduce((s, a) => s + a.amount, 0);
}

/** Flames shown for a streak: one per day, at most a week's worth. */
export const MAX_FLAMES = 7;

export function flames(streak: number): number {
  return Math.max(0, Math.min(MAX_FLAMES, Math.floor(streak)));
}

/** How hot the streak looks: none (0), warm (1-2), hot (3-6), blazing (a week or more). */
export function flameLevel(streak: number): 'none' | 'warm' | 'hot' | 'blazing' {
  if (streak >= 7) return 'blazing';
  if (streak >= 3) return 'hot';
  if (streak >= 1) return 'warm';
  return 'none';
}

/** What a calendar cell shows: its state and whether it is today. */
export function cellState(d: CalendarDay): 'checked' | 'today' | 'missed-or-future' {
  if (d.checked) return 'checked';
  if (d.today) return 'today';
  return 'missed-or-future';
}

/** The day of the month of a `YYYY-MM-DD` date (the cell's label), or '' for a bad date. */
export function dayOfMonth(date: string): string {
  const m = /^\d{4}-\d{2}-(\d{2})$/.exec(date);
  return m?.[1] ? String(Number(m[1])) : '';
}

/** The toast after a check-in: the credits this call earned, or "already" when it earned none. */
export function toastOf(done: CheckinDone): { key: 'checkin.toast'; n: number } | { key: 'checkin.already' } {
  return done.granted && done.reward > 0 ? { key: 'checkin.toast', n: done.reward } : { key: 'checkin.already' };
}

/** Time until the next check-in opens, as `h:mm` (0:00 once it has). */
export function untilNext(nextAt: number, now: number): string {
  const mins = Math.max(0, Math.ceil((nextAt - now) / 60_000));
  const h = Math.floor(mins / 60);
  const m = mins % 60;
  return `${h}:${String(m).padStart(2, '0')}`;
}

/** The browser's IANA time zone, sent so the first check-in counts days where the user lives. */
export function browserZone(): string | null {
  try {
    const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
    return typeof tz === 'string' && tz !== '' ? tz : null;
  } catch {
    return null;
  }
}

/** Whether the zone can be changed at `now`: freely (none pinned yet), once (the 30-day rule allows it), or from a date. */
export type ZoneChange = { kind: 'free' } | { kind: 'once' } | { kind: 'wait'; until: number };

export function zoneChange(info: Pick<CheckinInfo, 'time_zone_pinned' | 'time_zone_change_at'>, now: number): ZoneChange {
  if (!info.time_zone_pinned) return { kind: 'free' };
  if (info.time_zone_change_at > now) return { kind: 'wait', until: info.time_zone_change_at };
  return { kind: 'once' };
}

/** The IANA zones offered when changing it: the browser's list (with UTC and the current and device zones), sorted. */
export function zoneChoices(current: string, device: string | null, supported: () => string[] = supportedZones): string[] {
  const all = new Set(supported());
  all.add('UTC');
  all.add(current);
  if (device !== null) all.add(device);
  return [...all].sort((a, b) => a.localeCompare(b));
}

function supportedZones(): string[] {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return [];
  }
}

/** Most days in a schedule and the largest reward of one (the server's bounds). */
export const MAX_SCHEDULE_DAYS = 31;
export const MAX_DAY_REWARD = 100_000;

/** The operator's schedule typed as `5, 5, 10`: the rewards, or null when it is out of bounds. */
export function parseSchedule(text: string): number[] | null {
  const parts = text
    .split(/[\s,;]+/)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0 || parts.length > MAX_SCHEDULE_DAYS) return null;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d+$/.test(p)) return null;
    const n = Number(p);
    if (n > MAX_DAY_REWARD) return null;
    out.push(n);
  }
  return out;
}
