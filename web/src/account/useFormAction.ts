// The state every small account form keeps: whether its call is under way
// and the error to show. `run` ignores a second submit while one is pending,
// clears the error, awaits the action and keeps its failure as the message.
import { useCallback, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { errorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';

export interface FormAction {
  pending: boolean;
  error: ErrorMessage | null;
  setError: (e: ErrorMessage | null) => void;
  /** Submits: prevents the default, then runs `action` once at a time. */
  run: (e: FormEvent | null, action: () => Promise<void>) => Promise<void>;
}

/** Runs `action` with pending and error bookkeeping (the hook's core, testable without React). */
export async function runAction(
  busy: { current: boolean },
  set: { pending: (p: boolean) => void; error: (e: ErrorMessage | null) => void },
  action: () => Promise<void>,
): Promise<void> {
  if (busy.current) return;
  busy.current = true;
  set.pending(true);
  set.error(null);
  try {
    await action();
  } catch (err) {
    set.error(errorMessage(err));
  } finally {
    busy.current = false;
    set.pending(false);
  }
}

export function useFormAction(): FormAction {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ErrorMessage | null>(null);
  const busy = useRef(false);
  const run = useCallback(async (e: FormEvent | null, action: () => Promise<void>) => {
    e?.preventDefault();
    await runAction(busy, { pending: setPending, error: setError }, action);
  }, []);
  return { pending, error, setError, run };
}
