// The buy buttons' shared state: which purchase is under way and the last error's text.
import { useCallback, useState } from 'react';
import { appStore } from '../state/jotai';
import { purchase } from './buy';
import type { Purchase } from './buy';
import { useErrorText } from './hooks';

export function useBuy() {
  const errorText = useErrorText();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const buy = useCallback(
    /** Answers true when the order was created and followed. */
    async (id: string, what: Purchase): Promise<boolean> => {
      setBusy(id);
      setError(null);
      try {
        return (await purchase(appStore, what)) !== null;
      } catch (e) {
        setError(errorText(e));
        return false;
      } finally {
        setBusy(null);
      }
    },
    [errorText],
  );
  return { busy, error, buy };
}
