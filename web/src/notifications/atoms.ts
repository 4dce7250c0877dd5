// Atoms of the notifications: the list with its unread count (frame 13
// pushes and `notification/list` pages through model.ts), and a counter that
// asks the bell to read the list again (after a resume lost frames).
import { atom } from '../state/jotai';
import { EMPTY_NOTIFICATIONS } from './model';
import type { NotificationState } from './model';

export const notificationsAtom = atom<NotificationState>(EMPTY_NOTIFICATIONS);

/** Bumped when pushes may have been lost: the first page is read again. */
export const notificationsStaleAtom = atom(0);
