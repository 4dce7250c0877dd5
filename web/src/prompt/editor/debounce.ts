// A framework-free trailing debounce for the editor's definition look-up
// (spec 1 §9: 200 ms): while the user keeps hovering or typing, only the last
// call runs, once the input has been quiet for the delay.

import { DEFINITION_DEBOUNCE_MS } from './display';

/** A debounced function plus `cancel` (drop the pending call) and `flush` (run it now). */
export interface Debounced<A extends unknown[]> {
  (...args: A): void;
  cancel(): void;
  flush(): void;
}

/** Delays `fn` until `waitMs` have passed without another call; the last arguments win. */
export function debounce<A extends unknown[]>(fn: (...args: A) => void, waitMs: number = DEFINITION_DEBOUNCE_MS): Debounced<A> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let pending: A | null = null;

  const run = (): void => {
    timer = null;
    const args = pending;
    pending = null;
    if (args !== null) fn(...args);
  };

  const debounced = (...args: A): void => {
    pending = args;
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(run, waitMs);
  };
  debounced.cancel = (): void => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    pending = null;
  };
  debounced.flush = (): void => {
    if (timer !== null) clearTimeout(timer);
    run();
  };
  return debounced;
}
