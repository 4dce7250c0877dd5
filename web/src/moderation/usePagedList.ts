// A list read page by page (`{items, cursor}` answers): the first page on
// mount and whenever `deps` change or `reload()` runs, then `more()` appends
// the next page without repeating an entry. Only the newest request's answer
// lands: one that arrives after the deps changed, a reload or unmount is dropped.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { DependencyList } from 'react';
import type { Paged } from './api';
import { appendUnique } from './model';

export interface PagedList<T> {
  items: T[];
  /** True while more pages exist. */
  hasMore: boolean;
  /** True until the newest request has answered or failed. */
  loading: boolean;
  /** The newest request's failure, else null. */
  error: unknown;
  more: () => void;
  reload: () => void;
  /** Replaces one entry (by key) after an action changed it. */
  replace: (item: T) => void;
}

interface Settled<T> {
  /** The request that answered: the list's key and the cursor it read from. */
  request: string;
  listKey: string;
  items: T[];
  cursor: string | null;
  error: unknown;
}

export function usePagedList<T>(load: (cursor: string | null) => Promise<Paged<T>>, key: (x: T) => string, deps: DependencyList): PagedList<T> {
  const [attempt, setAttempt] = useState(0);
  // `deps` are plain values (filters); with the reload count they name the list.
  const listKey = `${JSON.stringify(deps)}#${attempt}`;
  const [next, setNext] = useState<{ listKey: string; cursor: string } | null>(null);
  const from = next !== null && next.listKey === listKey ? next.cursor : null;
  const request = `${listKey}@${from ?? ''}`;
  const [settled, setSettled] = useState<Settled<T> | null>(null);
  const loadRef = useRef(load);
  const keyRef = useRef(key);
  useEffect(() => {
    loadRef.current = load;
    keyRef.current = key;
  });

  useEffect(() => {
    let gone = false;
    loadRef.current(from).then(
      (page) => {
        if (gone) return;
        setSettled((before) => ({
          request,
          listKey,
          items: from !== null && before !== null && before.listKey === listKey ? appendUnique(before.items, page.items, keyRef.current) : page.items,
          cursor: page.cursor,
          error: null,
        }));
      },
      (e: unknown) => {
        if (gone) return;
        setSettled((before) => ({
          request,
          listKey,
          items: before !== null && before.listKey === listKey ? before.items : [],
          cursor: before !== null && before.listKey === listKey ? before.cursor : null,
          error: e,
        }));
      },
    );
    return () => {
      gone = true;
    };
  }, [request, listKey, from]);

  const cursor = settled?.cursor ?? null;
  const more = useCallback(() => {
    if (cursor !== null) setNext({ listKey, cursor });
  }, [cursor, listKey]);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  const replace = useCallback((item: T) => {
    const k = keyRef.current(item);
    setSettled((s) => (s === null ? s : { ...s, items: s.items.map((x) => (keyRef.current(x) === k ? item : x)) }));
  }, []);

  const current = settled !== null && settled.listKey === listKey;
  return {
    // The last answer stays on screen while a newer request runs.
    items: settled?.items ?? [],
    hasMore: current && settled.error === null && cursor !== null,
    loading: settled === null || settled.request !== request,
    error: settled !== null && settled.request === request ? settled.error : null,
    more,
    reload,
    replace,
  };
}
