// The text filter's calls (issue 20 item 5; backend/src/routes/text_filter.rs):
// the operators' `admin/text-filter/{list, upsert, delete, restore}` and
// `tool/text/detection` for the console's "try a text" box. Wire types mirror
// protocol/src/textfilter/{entry,wire}.rs by hand; field names as on the wire.
import type { ApiClient } from '../api/client';

const V1 = '/api/v1/';

export const SCENES = ['prompt', 'name', 'title', 'description', 'comment', 'character', 'message'] as const;
export type Scene = (typeof SCENES)[number];
export type FilterAction = 'mask' | 'refuse' | 'allow';
export const FILTER_ACTIONS: readonly FilterAction[] = ['mask', 'refuse', 'allow'];
export type FilterKind = 'word' | 'pattern';

/** One entry of a list, as an operator writes it. */
export interface FilterEntry {
  id: string;
  term: string;
  kind: FilterKind;
  lang: string;
  category: string;
  action: FilterAction;
  /** Empty: every scene. */
  scenes: Scene[];
  whole_word: boolean;
}

/** An entry of the effective list. */
export interface FilterEntryView extends FilterEntry {
  source: 'default' | 'operator';
  updated_at: number;
}

export interface FilterList {
  list: FilterEntryView[];
  deleted_defaults: string[];
}

export interface FilterHit {
  start: number;
  end: number;
  text: string;
  category: string;
  action: FilterAction;
}

export interface Detection {
  scene: Scene;
  refused: boolean;
  hit: boolean;
  hits: FilterHit[];
  masked: string;
}

export const TEXT_FILTER_PATHS = {
  list: 'admin/text-filter/list',
  upsert: 'admin/text-filter/upsert',
  remove: 'admin/text-filter/delete',
  restore: 'admin/text-filter/restore',
  detect: 'tool/text/detection',
} as const;

function asList(d: unknown): FilterList {
  const o = (d ?? {}) as { list?: unknown; deleted_defaults?: unknown };
  return {
    list: Array.isArray(o.list) ? (o.list as FilterEntryView[]) : [],
    deleted_defaults: Array.isArray(o.deleted_defaults) ? (o.deleted_defaults as string[]) : [],
  };
}

export class TextFilterApi {
  constructor(private readonly api: Pick<ApiClient, 'post'>) {}

  private call<T>(path: string, body: unknown = {}): Promise<T> {
    return this.api.post<T>(`${V1}${path}`, body);
  }

  async list(): Promise<FilterList> {
    return asList(await this.call<unknown>(TEXT_FILTER_PATHS.list));
  }

  upsert(entry: FilterEntry): Promise<FilterEntryView> {
    return this.call(TEXT_FILTER_PATHS.upsert, entry);
  }

  remove(id: string): Promise<unknown> {
    return this.call(TEXT_FILTER_PATHS.remove, { id });
  }

  restore(id: string): Promise<unknown> {
    return this.call(TEXT_FILTER_PATHS.restore, { id });
  }

  detect(text: string, scene: Scene): Promise<Detection> {
    return this.call(TEXT_FILTER_PATHS.detect, { text, scene });
  }
}
