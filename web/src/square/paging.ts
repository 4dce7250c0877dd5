// Cursor paging as a reducer: the first page replaces the list, the next
// pages append without duplicates (a work that moved between two pages while
// others liked and published shows once), a page of an older request is
// dropped, and the end is reached when the server answers no cursor.

export interface Paged<T> {
  items: T[];
  /** The cursor of the next page; null when the list is complete (or not loaded). */
  cursor: string | null;
  /** The first page has answered. */
  loaded: boolean;
  /** A page is being read. */
  loading: boolean;
  /** Why the last page failed, or null. */
  error: unknown;
  /** Bumped by each reset: answers of an older generation are ignored. */
  generation: number;
}

export function emptyPaged<T>(generation = 0): Paged<T> {
  return { items: [], cursor: null, loaded: false, loading: false, error: null, generation };
}

export type PagingAction<T> =
  | { type: 'reset'; generation: number }
  | { type: 'request'; generation: number }
  | { type: 'page'; generation: number; items: readonly T[]; cursor: string | null }
  | { type: 'failed'; generation: number; error: unknown }
  | { type: 'update'; f: (items: T[]) => T[] };

/** Whether another page can be asked for now. */
export function canLoadMore<T>(s: Paged<T>): boolean {
  return !s.loading && s.error === null && (!s.loaded || s.cursor !== null);
}

/** The reducer; `keyOf` names an item (cards: their obj_type and id). */
export function pagingReducer<T>(keyOf: (item: T) => string) {
  return (s: Paged<T>, a: PagingAction<T>): Paged<T> => {
    switch (a.type) {
      case 'reset':
        return emptyPaged<T>(a.generation);
      case 'request':
        return a.generation === s.generation ? { ...s, loading: true, error: null } : s;
      case 'page': {
        if (a.generation !== s.generation) return s;
        const seen = new Set(s.items.map(keyOf));
        const fresh: T[] = [];
        for (const item of a.items) {
          const k = keyOf(item);
          if (seen.has(k)) continue;
          seen.add(k);
          fresh.push(item);
        }
        // A page that brings nothing new (or nothing at all) ends the list, so a server that
        // repeats itself cannot keep the scroll loading forever.
        const cursor = fresh.length === 0 ? null : a.cursor;
        return { ...s, items: [...s.items, ...fresh], cursor, loaded: true, loading: false, error: null };
      }
      case 'failed':
        return a.generation === s.generation ? { ...s, loaded: true, loading: false, error: a.error } : s;
      case 'update':
        return { ...s, items: a.f(s.items) };
    }
  };
}
