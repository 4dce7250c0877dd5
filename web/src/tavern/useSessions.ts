import { useAtomValue } from '../state/jotai';
import { tavernApi } from './actions';
import { sessionListStaleAtom } from './atoms';
import type { ChatSession } from './model';
import { useErrorText } from './useErrorText';
import { useLoaded } from './useLoaded';

/** One character's chat sessions, read again when a reply finishes. */
export function useSessions(characterId: string) {
  const errorText = useErrorText();
  const stale = useAtomValue(sessionListStaleAtom);
  // Kept while a newer list is read and when a read fails (the error shows beside it).
  const list = useLoaded<ChatSession[], ChatSession[] | null>(() => tavernApi.sessions(characterId).then((page) => page.items), [characterId, stale], null);
  return { sessions: list.value, setSessions: list.setValue, error: list.failed ? errorText(list.error) : null, reload: list.reload };
}
