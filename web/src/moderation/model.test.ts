import { describe, expect, it } from 'vitest';
import type { QueueItem } from './api';
import { afterAction, appendUnique, checkReason, checkReport, itemButtons, itemKey, reasonsByCount, REPORT_REASONS, scoreText, TEXT_MAX } from './model';

function item(over: Partial<QueueItem> = {}): QueueItem {
  return {
    kind: 'report',
    obj_type: 4,
    obj_id: 'w1',
    owner: 'a1',
    owner_name: 'Ada',
    summary: { title: 'Dusk', text: '', cover: '/c.png', nsfw: false, nsfw_score: null, gone: false },
    moderation: null,
    reports: { count: 2, reasons: { spam: 1, hate: 1 }, latest_at: 2, items: [] },
    appeal: null,
    history: [],
    ...over,
  };
}

describe('report checks', () => {
  it('needs a listed reason, text for "other", and at most 500 characters', () => {
    expect(checkReport(REPORT_REASONS, '', '')).toBe('reasonNeeded');
    expect(checkReport(REPORT_REASONS, 'bogus', 'x')).toBe('reasonNeeded');
    expect(checkReport(REPORT_REASONS, 'spam', '')).toBeNull();
    expect(checkReport(REPORT_REASONS, 'other', '   ')).toBe('textNeeded');
    expect(checkReport(REPORT_REASONS, 'other', 'it is a scam')).toBeNull();
    expect(checkReport(REPORT_REASONS, 'spam', 'x'.repeat(TEXT_MAX))).toBeNull();
    expect(checkReport(REPORT_REASONS, 'spam', 'x'.repeat(TEXT_MAX + 1))).toBe('textTooLong');
    // Characters, not UTF-16 units: 500 emoji fit.
    expect(checkReport(REPORT_REASONS, 'spam', '😀'.repeat(TEXT_MAX))).toBeNull();
  });

  it('follows the server’s list when it says which reasons need text', () => {
    expect(checkReport([{ reason: 'spam', needs_text: true }], 'spam', '')).toBe('textNeeded');
    expect(checkReport([{ reason: 'spam', needs_text: true }], 'hate', 'x')).toBe('reasonNeeded');
  });

  it('a moderator’s reason is required and bounded', () => {
    expect(checkReason('  ')).toBe('reasonNeeded');
    expect(checkReason('spam ring')).toBeNull();
    expect(checkReason('y'.repeat(TEXT_MAX + 1))).toBe('reasonTooLong');
  });
});

describe('queue item buttons', () => {
  it('a reported visible work: hide, ban from feeds, resolve, dismiss, ban the owner', () => {
    expect(itemButtons(item())).toEqual(['hide', 'feedBan', 'resolve', 'dismiss', 'banOwner']);
  });

  it('a hidden work offers restore; one out of feeds offers both hide and return', () => {
    expect(itemButtons(item({ moderation: { state: 'hidden', reason: 'r', at: 1 } }))).toEqual(['unhide', 'resolve', 'dismiss', 'banOwner']);
    expect(itemButtons(item({ moderation: { state: 'feed_banned', reason: 'r', at: 1 } }))).toEqual(['hide', 'feedUnban', 'resolve', 'dismiss', 'banOwner']);
  });

  it('feed bans are for works only; closed reports offer no resolve', () => {
    expect(itemButtons(item({ obj_type: 30, reports: { count: 0, reasons: {}, latest_at: 0, items: [] } }))).toEqual(['hide', 'banOwner']);
  });

  it('an open appeal on a hidden work: keep or restore (and unflag when rated sensitive)', () => {
    const appeal = { appeal_id: 'ap1', text: 'please', create_at: 1, status: 'open' as const, reason: '' };
    const hidden = item({ kind: 'appeal', reports: null, appeal, moderation: { state: 'hidden', reason: 'r', at: 1 } });
    expect(itemButtons(hidden)).toEqual(['keep', 'restore', 'banOwner']);
    const flagged = item({ kind: 'appeal', reports: null, appeal, summary: { ...item().summary, nsfw: true } });
    expect(itemButtons(flagged)).toEqual(['keep', 'unflag', 'hide', 'feedBan', 'banOwner']);
    expect(itemButtons({ ...flagged, moderation: { state: 'hidden', reason: 'r', at: 1 } })).toEqual(['keep', 'restore', 'banOwner']);
    // Decided: no decision buttons any more.
    expect(itemButtons({ ...hidden, appeal: { ...appeal, status: 'kept' } })).toEqual(['unhide', 'banOwner']);
  });

  it('a deleted object offers only the report decisions', () => {
    expect(itemButtons(item({ summary: { ...item().summary, gone: true }, owner: '' }))).toEqual(['resolve', 'dismiss']);
  });
});

describe('helpers', () => {
  it('orders reasons by count then name, skipping zeros', () => {
    expect(reasonsByCount({ spam: 1, hate: 3, nudity: 1, other: 0 })).toEqual([
      ['hate', 3],
      ['nudity', 1],
      ['spam', 1],
    ]);
    expect(reasonsByCount(undefined)).toEqual([]);
  });

  it('shows a score as a clamped percentage', () => {
    expect(scoreText(0.873)).toBe('87%');
    expect(scoreText(1.4)).toBe('100%');
    expect(scoreText(null)).toBeNull();
    expect(scoreText(Number.NaN)).toBeNull();
  });

  it('appends a page without repeating entries, and keys items by kind and object', () => {
    expect(appendUnique([{ id: 'a' }, { id: 'b' }], [{ id: 'b' }, { id: 'c' }], (x) => x.id).map((x) => x.id)).toEqual(['a', 'b', 'c']);
    expect(itemKey(item())).toBe('report:4:w1');
    expect(itemKey(item({ kind: 'appeal' }))).not.toBe(itemKey(item()));
  });
});

describe('a card after an action', () => {
  const appeal = { appeal_id: 'ap1', text: 'please', create_at: 1, status: 'open' as const, reason: '' };
  it('takes the fresh read but keeps its kind, and the decision’s appeal', () => {
    const card = item({ kind: 'appeal', appeal, moderation: { state: 'hidden', reason: 'r', at: 1 } });
    const fresh = item({ kind: 'report', moderation: null, appeal: null });
    const got = afterAction(card, fresh, { appeal: { ...appeal, status: 'changed', reason: 'ok' } });
    expect(got.kind).toBe('appeal');
    expect(got.moderation).toBeNull();
    expect(got.appeal?.status).toBe('changed');
    expect(itemButtons(got)).toEqual(['hide', 'feedBan', 'banOwner']);
  });

  it('keeps what it knew when the object cannot be read', () => {
    const card = item({ moderation: null });
    expect(afterAction(card, null, {})).toEqual({ ...card, appeal: null });
  });
});
