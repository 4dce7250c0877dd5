// The square's filter bar per page key (spec 3 §2 "Filter sets per page
// key"): which filters a page shows, their values (spec 3 §3), and the feed
// request they make. The preference filter is the tab row (recommend,
// follows, hot, new); the others are chips under it.
import type { FeedRequest, OrderBy, OutputType, TimeType } from './types';

export type FilterName = 'preference' | 'timeType' | 'resourceType' | 'postType';

/** Spec 3 §2's table, for the pages Easel has. */
export const PAGE_FILTERS = {
  home: ['preference', 'timeType', 'resourceType'],
  post: ['preference', 'timeType', 'postType'],
} as const satisfies Record<string, readonly FilterName[]>;
export type PageKey = keyof typeof PAGE_FILTERS;

export const ORDERS: readonly OrderBy[] = ['recommend', 'follows', 'hot', 'new'];
export const TIME_TYPES: readonly TimeType[] = ['all', 'day', 'week', 'month'];
export const OUTPUT_TYPES: readonly OutputType[] = ['picture', 'article', 'video'];

export interface FeedFilters {
  order_by: OrderBy;
  time_type: TimeType;
  /** Empty: every kind. */
  output_types: OutputType[];
  /** Only works with this tag; '' for any. */
  tag: string;
}

export const DEFAULT_FILTERS: FeedFilters = { order_by: 'recommend', time_type: 'all', output_types: [], tag: '' };

/** Whether `page` shows `filter`. */
export function hasFilter(page: PageKey, filter: FilterName): boolean {
  return (PAGE_FILTERS[page] as readonly FilterName[]).includes(filter);
}

/** The feed request of the filters a page shows (defaults left out; the tag only when set). */
export function feedRequest(page: PageKey, f: FeedFilters, cursor: string | null = null): FeedRequest {
  const req: FeedRequest = { order_by: f.order_by };
  if (hasFilter(page, 'timeType') && f.time_type !== 'all') req.time_type = f.time_type;
  if ((hasFilter(page, 'resourceType') || hasFilter(page, 'postType')) && f.output_types.length > 0) {
    req.output_types = OUTPUT_TYPES.filter((o) => f.output_types.includes(o));
  }
  if (f.tag.trim() !== '') req.tag = f.tag.trim();
  if (cursor !== null) req.cursor = cursor;
  return req;
}

/** Toggles one post kind in the filter; choosing all three is the same as none. */
export function toggleOutput(f: FeedFilters, o: OutputType): FeedFilters {
  const next = f.output_types.includes(o) ? f.output_types.filter((x) => x !== o) : [...f.output_types, o];
  return { ...f, output_types: next.length === OUTPUT_TYPES.length ? [] : next };
}

/** Whether anything but the tab differs from the defaults. */
export function isFiltered(f: FeedFilters): boolean {
  return f.time_type !== 'all' || f.output_types.length > 0 || f.tag !== '';
}
