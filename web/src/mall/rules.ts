// The mall's timing rules as pure functions: the subscription banner (spec 1 §4: a
// logged-in non-paid user, 24 h after the last banner), the half-price popup (asked
// at most once a UTC day per account) and when the return page stops polling.
import type { OrderStatus } from '../api/mall';
import { readStored, writeStored } from '../generator/storage';

export const BANNER_INTERVAL_MS = 24 * 60 * 60 * 1000;
/** The return page asks for the order's state this often… */
export const POLL_INTERVAL_MS = 2_000;
/** …for this long, then offers to keep waiting. */
export const POLL_LIMIT_MS = 120_000;

export const MALL_STORAGE_KEYS = {
  /** Epoch ms the subscription banner was last shown. */
  bannerAt: 'easel.mall.bannerAt',
  /** `{account}:{YYYY-MM-DD}` of the last half-price popup request. */
  discountAsked: 'easel.mall.discountAsked',
} as const;

/** Whether the banner is due: never shown, or shown at least 24 h ago (a clock set back counts as due). */
export function bannerDue(now: number, lastShown: number | null): boolean {
  if (lastShown === null || !Number.isFinite(lastShown)) return true;
  return now - lastShown >= BANNER_INTERVAL_MS || now < lastShown;
}

export function readBannerAt(): number | null {
  const raw = readStored(MALL_STORAGE_KEYS.bannerAt);
  const v = Number(raw);
  return raw === null || raw.trim() === '' || !Number.isFinite(v) ? null : v;
}

export function writeBannerAt(now: number): void {
  writeStored(MALL_STORAGE_KEYS.bannerAt, String(now));
}

/** The UTC day of an instant, `YYYY-MM-DD` (the server counts its once-a-day in UTC too). */
export function utcDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** Whether to ask for the half-price popup: not yet asked today for this account. */
export function discountDue(now: number, account: string, lastAsked: string | null): boolean {
  return lastAsked !== `${account}:${utcDay(now)}`;
}

export function readDiscountAsked(): string | null {
  return readStored(MALL_STORAGE_KEYS.discountAsked);
}

export function writeDiscountAsked(now: number, account: string): void {
  writeStored(MALL_STORAGE_KEYS.discountAsked, `${account}:${utcDay(now)}`);
}

/** States after which an order's state no longer changes by waiting. */
export const SETTLED: readonly OrderStatus[] = ['paid', 'failed', 'refunded', 'disputed'];

export type PollStep = 'settled' | 'wait' | 'timeout';

/** After an answer with `status`, polling that began at `startedAt`: stop, ask again, or give up for now. */
export function pollStep(status: OrderStatus | null, startedAt: number, now: number): PollStep {
  if (status !== null && SETTLED.includes(status)) return 'settled';
  return now - startedAt >= POLL_LIMIT_MS ? 'timeout' : 'wait';
}
