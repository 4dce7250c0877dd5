import { useCallback, useEffect, useState } from 'react';
import type { DependencyList, Dispatch, SetStateAction } from 'react';

/** What `useLoaded` gives back. */
export interface LoadedValue<T> {
  /** The newest answer; the initial value until one arrives. Kept while a newer load runs and when one fails. */
  value: T;
  /** Sets `value` by hand (an optimistic change, a page appended); the next answer replaces it. */
  setValue: Dispatch<SetStateAction<T>>;
  /** Whether the newest settled load failed (then `error` is why); cleared by the next answer. */
  failed: boolean;
  error: unknown;
  /** True until the load for the current deps (and reload) has answered or failed. */
  loading: boolean;
  /** Loads again with the same deps (a retry); a stable function. */
  reload: () => void;
}

interface Settled {
  /** The deps (plus the reload count) of the load that settled. */
  deps: readonly unknown[];
  failed: boolean;
  error: unknown;
}

function sameDeps(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
}

/**
 * Runs `load` on mount, whenever `deps` change and on `reload()`, like an effect whose answer
 * lands in state. An answer that arrives after unmount, after the deps changed or after a
 * reload is dropped: only the newest load can set `value` or the error.
 *
 * `deps` lists what `load` reads, as for `useEffect` (the linter cannot check them here).
 */
export function useLoaded<T>(load: () => Promise<T>, deps: DependencyList): LoadedValue<T | undefined>;
export function useLoaded<T>(load: () => Promise<T>, deps: DependencyList, initial: T): LoadedValue<T>;
export function useLoaded<T, I>(load: () => Promise<T>, deps: DependencyList, initial: I): LoadedValue<T | I>;
export function useLoaded<T, I>(load: () => Promise<T>, deps: DependencyList, initial?: I): LoadedValue<T | I | undefined> {
  const [value, setValue] = useState<T | I | undefined>(initial);
  const [settled, setSettled] = useState<Settled | null>(null);
  const [attempt, setAttempt] = useState(0);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  const key = [...deps, attempt];

  useEffect(() => {
    let gone = false;
    load().then(
      (answer) => {
        if (gone) return;
        setValue(answer);
        setSettled({ deps: key, failed: false, error: undefined });
      },
      (error: unknown) => {
        if (!gone) setSettled({ deps: key, failed: true, error });
      },
    );
    return () => {
      gone = true;
    };
    // `load` is a new closure each render; `key` (the caller's deps and the reload count) says when to call it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, key);

  return {
    value,
    setValue,
    failed: settled?.failed ?? false,
    error: settled?.error,
    loading: settled === null || !sameDeps(settled.deps, key),
    reload,
  };
}
