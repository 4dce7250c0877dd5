// The models feed's filters (spec 3 §2 page key `model`: preference,
// timeType, modelType, baseModels; §3 payload names order_by, time_type,
// model_types, base_models) as pure functions: the call's body, toggling,
// and the address query that keeps them.
import type { OrderBy, TimeType } from '../square/types';
import { MODEL_TYPES } from './api';
import type { ModelType } from './api';

export const ORDERS: readonly OrderBy[] = ['recommend', 'hot', 'new'];
export const TIMES: readonly TimeType[] = ['all', 'day', 'week', 'month'];

export interface ModelFilters {
  order_by: OrderBy;
  time_type: TimeType;
  model_types: ModelType[];
  base_models: string[];
}

export const NO_MODEL_FILTERS: ModelFilters = { order_by: 'new', time_type: 'all', model_types: [], base_models: [] };

export function feedBody(f: ModelFilters, cursor: string | null, pageSize = 24): Record<string, unknown> {
  const body: Record<string, unknown> = { order_by: f.order_by, time_type: f.time_type, page_size: pageSize };
  if (f.model_types.length > 0) body.model_types = f.model_types;
  if (f.base_models.length > 0) body.base_models = f.base_models;
  if (cursor) body.cursor = cursor;
  return body;
}

export function toggle<K extends 'model_types' | 'base_models'>(f: ModelFilters, key: K, value: ModelFilters[K][number]): ModelFilters {
  const now = f[key] as string[];
  const next = now.includes(value) ? now.filter((v) => v !== value) : [...now, value];
  return { ...f, [key]: next };
}

/** The filters in an address query (`?type=lora&base=sdxl,sd&order=hot&time=week`); the defaults are left out. */
export function filtersQuery(f: ModelFilters): string {
  const q = new URLSearchParams();
  if (f.model_types.length > 0) q.set('type', f.model_types.join(','));
  if (f.base_models.length > 0) q.set('base', f.base_models.join(','));
  if (f.order_by !== NO_MODEL_FILTERS.order_by) q.set('order', f.order_by);
  if (f.time_type !== NO_MODEL_FILTERS.time_type) q.set('time', f.time_type);
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}

/** The filters an address query says; unknown values are dropped. */
export function parseFiltersQuery(search: string): ModelFilters {
  const q = new URLSearchParams(search);
  const list = (name: string) => (q.get(name) ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const order = q.get('order') ?? '';
  const time = q.get('time') ?? '';
  return {
    order_by: (ORDERS as readonly string[]).includes(order) ? (order as OrderBy) : NO_MODEL_FILTERS.order_by,
    time_type: (TIMES as readonly string[]).includes(time) ? (time as TimeType) : NO_MODEL_FILTERS.time_type,
    model_types: list('type').filter((t): t is ModelType => (MODEL_TYPES as readonly string[]).includes(t)),
    base_models: [...new Set(list('base').filter((b) => /^[a-z0-9_.-]{1,32}$/i.test(b)))],
  };
}
