// Model leaderboards (spec 3 §7 Model ranking): the boards of `rank-index`
// and one board's entries from `rank-detail {rank_type, time_type}` over a
// window (day, week, month, all). Entries come as cards or model summaries
// with a rank and a score; both are read into one shape.
import type { ApiClient } from '../api/client';
import type { TimeType } from '../square/types';
import { listOf, MODEL_PATHS } from './api';

export const WINDOWS: readonly TimeType[] = ['day', 'week', 'month', 'all'];

export interface RankEntry {
  rank: number;
  model_id: string;
  name: string;
  cover: string | null;
  author: string;
  score: number | null;
  model_type: string | null;
  base_model: string | null;
}

export interface Board {
  rank_type: string;
  title: string;
  entries: RankEntry[];
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/** One entry from a card (`id`, `title`, `cover.url`, `author.name`) or a model (`model_id`, `name`, `cover`, `owner.name`). */
export function readEntry(raw: unknown, index: number): RankEntry | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const o = raw as Record<string, unknown>;
  const model = (typeof o.model === 'object' && o.model !== null ? o.model : o) as Record<string, unknown>;
  const id = str(model.model_id) ?? str(model.id) ?? str(o.model_id);
  if (id === null) return null;
  const cover = model.cover;
  const who = (model.owner ?? model.author) as Record<string, unknown> | undefined;
  return {
    rank: typeof o.rank === 'number' ? o.rank : index + 1,
    model_id: id,
    name: str(model.name) ?? str(model.title) ?? id,
    cover: typeof cover === 'string' ? cover : typeof cover === 'object' && cover !== null ? str((cover as { url?: unknown }).url) : str(model.banner),
    author: (who && str(who.name)) ?? '',
    score: typeof o.score === 'number' ? o.score : null,
    model_type: str(model.model_type),
    base_model: str(model.base_model_name) ?? str(model.base_model),
  };
}

export function readEntries(d: unknown): RankEntry[] {
  return listOf<unknown>(d).flatMap((x, i) => {
    const e = readEntry(x, i);
    return e ? [e] : [];
  });
}

export function readBoards(d: unknown): Board[] {
  const raw = Array.isArray(d) ? d : listOf<unknown>(d).length > 0 ? listOf<unknown>(d) : typeof d === 'object' && d !== null ? ((d as { boards?: unknown }).boards ?? []) : [];
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((b): Board[] => {
    if (typeof b !== 'object' || b === null) return [];
    const o = b as Record<string, unknown>;
    const type = str(o.rank_type) ?? str(o.type);
    if (type === null) return [];
    return [{ rank_type: type, title: str(o.title) ?? str(o.name) ?? type, entries: readEntries(o.items ?? o.top ?? o.entries ?? []) }];
  });
}

export async function rankIndex(api: Pick<ApiClient, 'post'>, time: TimeType): Promise<Board[]> {
  return readBoards(await api.post<unknown>(MODEL_PATHS.rankIndex, { time_type: time }));
}

export async function rankDetail(api: Pick<ApiClient, 'post'>, rankType: string, time: TimeType, filters: { model_types?: string[]; base_models?: string[] } = {}): Promise<RankEntry[]> {
  return readEntries(await api.post<unknown>(MODEL_PATHS.rankDetail, { rank_type: rankType, time_type: time, page_size: 50, ...filters }));
}
