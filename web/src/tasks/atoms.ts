// Atoms owned by the tasks feature. Written by sync.ts (and trackTaskAtom);
// components read them.
import { atom } from '../state/jotai';
import { EMPTY_LIST, NO_FILTER, trackId } from './model';
import type { TaskFilter, TaskListState } from './model';
import type { Assets } from './types';

/** The live task list (by id, newest first). */
export const tasksAtom = atom<TaskListState>(EMPTY_LIST);

/** The filter the shown list was fetched with. */
export const taskFilterAtom = atom<TaskFilter>(NO_FILTER);

/** A list fetch is under way (first page or next page). */
export const tasksLoadingAtom = atom<boolean>(false);

/** The list could not be fetched: the message key or text to show, else null. */
export const tasksErrorAtom = atom<string | null>(null);

/** The account's credits (`payment/assets/get`); null until known or when logged out. */
export const creditsAtom = atom<Assets | null>(null);

/**
 * Write-only: `store.set(trackTaskAtom, id)` puts a just-created task at the
 * top of the list; the task sync fetches its state at once and follows it
 * (socket pushes, or polling while the socket is not online) until it ends.
 */
export const trackTaskAtom = atom(null, (get, set, id: string) => {
  set(tasksAtom, trackId(get(tasksAtom), id));
});
