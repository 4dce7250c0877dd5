// The analytics calls: the operator's questions (`admin/analytics/*`) and
// the account's opt-out (`analytics/settings`). Types mirror
// protocol/src/analytics/query.rs.
import type { ApiClient } from '../api/client';

export interface DateRange {
  from?: string;
  to?: string;
  window_days?: number;
}

export interface DauDay {
  day: string;
  active: number;
  accounts: number;
  visitors: number;
}

export interface FunnelStep {
  step: 'visit' | 'sign_up' | 'first_generation' | 'purchase';
  count: number;
  rate: number;
}

export interface Funnel {
  from: string;
  to: string;
  window_days: number;
  steps: FunnelStep[];
}

export interface Cohort {
  week: string;
  size: number;
  retained: number[];
}

export interface ReleaseErrors {
  release: string;
  errors: number;
  people: number;
  top: { message: string; count: number }[];
}

export function analyticsApi(api: ApiClient) {
  return {
    dau: (r: DateRange) => api.post<{ from: string; to: string; days: DauDay[] }>('/api/v1/admin/analytics/dau', r),
    funnel: (r: DateRange) => api.post<Funnel>('/api/v1/admin/analytics/funnel', r),
    retention: (r: DateRange) => api.post<{ from: string; to: string; cohorts: Cohort[] }>('/api/v1/admin/analytics/retention', r),
    errors: (r: DateRange) => api.post<{ from: string; to: string; releases: ReleaseErrors[] }>('/api/v1/admin/analytics/errors', r),
    settings: (change: { analytics_opt_out?: boolean }) => api.post<{ analytics_opt_out: boolean }>('/api/v1/analytics/settings', change),
  };
}

/** The share of a cohort retained in week n (0 when the cohort is empty). */
export function retentionRate(c: Cohort, n: number): number {
  const v = c.retained[n];
  return c.size === 0 || v === undefined ? 0 : v / c.size;
}

/** A heat-map cell colour for a share in 0..1 (light to deep blue). */
export function heatColor(rate: number): string {
  const r = Math.max(0, Math.min(1, rate));
  const lightness = Math.round(96 - r * 56);
  return `hsl(212, 80%, ${lightness}%)`;
}

/** Text colour readable on `heatColor(rate)`. */
export function heatText(rate: number): string {
  return rate > 0.55 ? '#fff' : '#111';
}

/** `YYYY-MM-DD` of a date in UTC, `days` before it. */
export function isoDay(d: Date, daysBefore = 0): string {
  const t = new Date(d.getTime() - daysBefore * 86_400_000);
  return t.toISOString().slice(0, 10);
}
