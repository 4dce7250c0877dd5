import { useCallback, useEffect, useMemo, useReducer, useRef } from 'react';
import type { DependencyList } from 'react';
import { canLoadMore, emptyPaged, pagingReducer } from './paging';
import type { Paged } from './paging';

/** A page as every list call answers it. */
export interface CursorPage<T> {
  items: readonly T[];
  next_cursor: string | null;
}

export interface PagedList<T> {
  state: Paged<T>;
  /** Reads the next page, unless one is being read, the list is complete or the last one failed. */
  more: () => void;
  /** After a failure: asks for the failed page again. */
  retry: () => void;
  /** Changes the loaded items in place (a like, a removed work). */
  update: (f: (items: T[]) => T[]) => void;
}

/**
 * A cursor-paged list: the first page loads on mount and whenever `deps`
 * change (answers for older deps are dropped); `more()` appends the next
 * page through {@link pagingReducer}, without duplicates.
 */
export function usePaged<T>(load: (cursor: string | null) => Promise<CursorPage<T>>, keyOf: (item: T) => string, deps: DependencyList): PagedList<T> {
  // `keyOf` is read once: a list's items keep one identity.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const reducer = useMemo(() => pagingReducer(keyOf), []);
  const [state, dispatch] = useReducer(reducer, undefined, () => emptyPaged<T>());
  const stateRef = useRef(state);
  const loadRef = useRef(load);
  const generation = useRef(0);
  const busy = useRef(false);
  useEffect(() => {
    stateRef.current = state;
    loadRef.current = load;
  });

  const fetchPage = useCallback((cursor: string | null, force: boolean) => {
    if (busy.current && !force) return;
    const gen = generation.current;
    busy.current = true;
    dispatch({ type: 'request', generation: gen });
    loadRef.current(cursor).then(
      (page) => {
        if (gen !== generation.current) return;
        busy.current = false;
        dispatch({ type: 'page', generation: gen, items: page.items, cursor: page.next_cursor });
      },
      (error: unknown) => {
        if (gen !== generation.current) return;
        busy.current = false;
        dispatch({ type: 'failed', generation: gen, error });
      },
    );
  }, []);

  useEffect(() => {
    generation.current += 1;
    busy.current = false;
    dispatch({ type: 'reset', generation: generation.current });
    fetchPage(null, true);
    // `deps` says when the list is another one (the caller lists what `load` reads).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);

  const more = useCallback(() => {
    const s = stateRef.current;
    if (!canLoadMore(s) || busy.current || !s.loaded) return;
    fetchPage(s.cursor, false);
  }, [fetchPage]);

  const retry = useCallback(() => {
    const s = stateRef.current;
    if (busy.current || s.error === null) return;
    fetchPage(s.items.length === 0 ? null : s.cursor, false);
  }, [fetchPage]);

  const update = useCallback((f: (items: T[]) => T[]) => dispatch({ type: 'update', f }), []);

  return { state, more, retry, update };
}
