// The banner's 24 h rule, the half-price popup's once-a-UTC-day rule and the return page's stop rule.
import { afterEach, describe, expect, it } from 'vitest';
import {
  BANNER_INTERVAL_MS,
  bannerDue,
  discountDue,
  MALL_STORAGE_KEYS,
  POLL_LIMIT_MS,
  pollStep,
  readBannerAt,
  readDiscountAsked,
  utcDay,
  writeBannerAt,
  writeDiscountAsked,
} from './rules';

const T0 = Date.UTC(2026, 10, 26, 8, 0, 0);
const HOUR = 3_600_000;

afterEach(() => window.localStorage.clear());

describe('subscription banner (24 h)', () => {
  it('is due when never shown, then only 24 h after the last time', () => {
    expect(bannerDue(T0, null)).toBe(true);
    expect(bannerDue(T0 + HOUR, T0)).toBe(false);
    expect(bannerDue(T0 + BANNER_INTERVAL_MS - 1, T0)).toBe(false);
    expect(bannerDue(T0 + BANNER_INTERVAL_MS, T0)).toBe(true);
    expect(bannerDue(T0 + 3 * BANNER_INTERVAL_MS, T0)).toBe(true);
    // A clock set back does not hide it for ever.
    expect(bannerDue(T0 - HOUR, T0)).toBe(true);
  });

  it('remembers the last time in localStorage and ignores garbage', () => {
    expect(readBannerAt()).toBeNull();
    writeBannerAt(T0);
    expect(readBannerAt()).toBe(T0);
    window.localStorage.setItem(MALL_STORAGE_KEYS.bannerAt, 'soon');
    expect(readBannerAt()).toBeNull();
    window.localStorage.setItem(MALL_STORAGE_KEYS.bannerAt, '');
    expect(readBannerAt()).toBeNull();
  });
});

describe('half-price popup (once a UTC day per account)', () => {
  it('is asked once per day and per account', () => {
    expect(discountDue(T0, 'a1', readDiscountAsked())).toBe(true);
    writeDiscountAsked(T0, 'a1');
    expect(discountDue(T0 + HOUR, 'a1', readDiscountAsked())).toBe(false);
    // Another account on the same browser is asked.
    expect(discountDue(T0 + HOUR, 'a2', readDiscountAsked())).toBe(true);
    // The next UTC day, again.
    expect(discountDue(Date.UTC(2026, 10, 26, 23, 59), 'a1', readDiscountAsked())).toBe(false);
    expect(discountDue(Date.UTC(2026, 10, 27, 0, 0), 'a1', readDiscountAsked())).toBe(true);
  });

  it('counts days in UTC', () => {
    expect(utcDay(Date.UTC(2026, 0, 2, 0, 30))).toBe('2026-01-02');
    expect(utcDay(Date.UTC(2026, 0, 1, 23, 30))).toBe('2026-01-01');
  });
});

describe('return page polling', () => {
  it('stops on a settled state, waits on the others, gives up after the limit', () => {
    for (const s of ['paid', 'failed', 'refunded', 'disputed'] as const) expect(pollStep(s, T0, T0 + 1)).toBe('settled');
    for (const s of ['created', 'pending'] as const) expect(pollStep(s, T0, T0 + 1)).toBe('wait');
    expect(pollStep(null, T0, T0 + 1)).toBe('wait');
    expect(pollStep('pending', T0, T0 + POLL_LIMIT_MS - 1)).toBe('wait');
    expect(pollStep('pending', T0, T0 + POLL_LIMIT_MS)).toBe('timeout');
    // A settled answer wins over the limit.
    expect(pollStep('paid', T0, T0 + 2 * POLL_LIMIT_MS)).toBe('settled');
  });
});
