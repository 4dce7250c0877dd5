import { useCallback, useEffect, useState } from 'react';
import { useAtomValue } from '../state/jotai';
import { tavernApi } from './actions';
import { sessionListStaleAtom } from './atoms';
import type { ChatSession } from './model';
import { useErrorText } from './useErrorText';

/** One character's chat sessions, read again when a reply finishes. */
export function useSessions(characterId: string) {
  const errorText = useErrorText();
  const stale = useAtomValue(sessionListStaleAtom);
  const [sessions, setSessions] = useState<ChatSession[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  useEffect(() => {
    let gone = false;
    tavernApi
      .sessions(characterId)
      .then((page) => {
        if (gone) return;
        setSessions(page.items);
        setError(null);
      })
      .catch((e: unknown) => {
        if (!gone) setError(errorText(e));
      });
    return () => {
      gone = true;
    };
  }, [characterId, errorText, stale, attempt]);
  return { sessions, setSessions, error, reload };
}
