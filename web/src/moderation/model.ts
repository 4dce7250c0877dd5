// Moderation as pure functions: the fixed report reasons and the checks the
// server makes on a report, an action's reason and an appeal (so the dialogs
// refuse before sending), which one-click actions a queue item offers, the
// ban lengths, and a queue item's reasons ordered by count.
import type { Appeal, AuditEntry, QueueItem, ReasonInfo } from './api';
import { OBJ } from './api';

/** The fixed report reasons (protocol's list; `report/reasons` answers the same). */
export const REPORT_REASONS: readonly ReasonInfo[] = [
  { reason: 'sexual_minors', needs_text: false },
  { reason: 'nudity', needs_text: false },
  { reason: 'hate', needs_text: false },
  { reason: 'violence', needs_text: false },
  { reason: 'harassment', needs_text: false },
  { reason: 'spam', needs_text: false },
  { reason: 'impersonation', needs_text: false },
  { reason: 'copyright', needs_text: false },
  { reason: 'other', needs_text: true },
];

/** A report's details, an action's reason and an appeal's text: at most this many characters. */
export const TEXT_MAX = 500;

/** Characters as the server counts them (code points). */
export function charCount(s: string): number {
  return [...s].length;
}

export type ReportProblem = 'reasonNeeded' | 'textNeeded' | 'textTooLong';

/** What is wrong with a report before it is sent, or null. */
export function checkReport(reasons: readonly ReasonInfo[], reason: string, text: string): ReportProblem | null {
  const info = reasons.find((r) => r.reason === reason);
  if (!info) return 'reasonNeeded';
  const t = text.trim();
  if (info.needs_text && t === '') return 'textNeeded';
  if (charCount(t) > TEXT_MAX) return 'textTooLong';
  return null;
}

export type ReasonProblem = 'reasonNeeded' | 'reasonTooLong';

/** What is wrong with a moderator's reason (required, at most TEXT_MAX), or null. */
export function checkReason(reason: string): ReasonProblem | null {
  const t = reason.trim();
  if (t === '') return 'reasonNeeded';
  if (charCount(t) > TEXT_MAX) return 'reasonTooLong';
  return null;
}

/** A queue item's buttons: object actions (with a reason), appeal decisions, and banning the owner. */
export type ItemButton = 'hide' | 'unhide' | 'feedBan' | 'feedUnban' | 'resolve' | 'dismiss' | 'keep' | 'restore' | 'unflag' | 'banOwner';

/** The open appeal of an item, if any. */
export function openAppeal(item: QueueItem): Appeal | null {
  return item.kind === 'appeal' && item.appeal && item.appeal.status === 'open' ? item.appeal : null;
}

/**
 * The one-click actions a queue item offers: hide or restore (works,
 * characters, comments, messages), ban from feeds or return (works only,
 * when not hidden), resolve or dismiss open reports, decide an open appeal
 * (keep; accept and restore when the object is hidden or out of feeds,
 * which also rates it safe; else unflag when it is rated sensitive), and ban
 * the owner. A deleted object offers only the
 * report and appeal decisions.
 */
export function itemButtons(item: QueueItem): ItemButton[] {
  const out: ItemButton[] = [];
  const state = item.moderation?.state ?? null;
  const appeal = openAppeal(item);
  if (appeal) {
    out.push('keep');
    if (state !== null) out.push('restore');
    if (item.summary.nsfw && state === null) out.push('unflag');
  }
  if (!item.summary.gone) {
    if (state === 'hidden') {
      if (!appeal) out.push('unhide');
    } else {
      out.push('hide');
      if (item.obj_type === OBJ.work) {
        if (state === 'feed_banned') {
          if (!appeal) out.push('feedUnban');
        } else out.push('feedBan');
      }
    }
  }
  if (item.kind === 'report' && (item.reports?.count ?? 0) > 0) out.push('resolve', 'dismiss');
  if (item.owner !== '') out.push('banOwner');
  return out;
}

/** Ban lengths offered (seconds; 0 = permanent). */
export const BAN_DURATIONS = [3600, 86400, 604800, 2592000, 31536000, 0] as const;
export type BanDuration = (typeof BAN_DURATIONS)[number];

/** A report group's reasons, most reported first (then by name, so the order is stable). */
export function reasonsByCount(reasons: Record<string, number> | undefined): Array<[string, number]> {
  return Object.entries(reasons ?? {})
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** An NSFW score (0..1) as a percentage text, or null when there is none. */
export function scoreText(score: number | null | undefined): string | null {
  if (typeof score !== 'number' || !Number.isFinite(score)) return null;
  return `${Math.round(Math.min(1, Math.max(0, score)) * 100)}%`;
}

/** Items of a new page after the ones already listed, without repeating an entry (by key). */
export function appendUnique<T>(before: readonly T[], page: readonly T[], key: (x: T) => string): T[] {
  const seen = new Set(before.map(key));
  return [...before, ...page.filter((x) => !seen.has(key(x)))];
}

/** A queue item's key: kind, object type and id (an object may be both reported and appealed). */
export function itemKey(item: Pick<QueueItem, 'kind' | 'obj_type' | 'obj_id'>): string {
  return `${item.kind}:${item.obj_type}:${item.obj_id}`;
}

export function auditKey(e: AuditEntry): string {
  return e.id;
}

/**
 * The card after an action: the server's fresh read of the object, keeping
 * the card's kind (and its appeal, updated by the decision's answer).
 */
export function afterAction(item: QueueItem, fresh: QueueItem | null, patch: Partial<QueueItem>): QueueItem {
  const appeal = patch.appeal ?? (fresh?.appeal && fresh.appeal.appeal_id === item.appeal?.appeal_id ? fresh.appeal : item.appeal);
  return { ...item, ...(fresh ?? {}), kind: item.kind, appeal: appeal ?? null };
}
