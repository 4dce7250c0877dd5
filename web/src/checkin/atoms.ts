// The check-in widget's and the award popup's atoms.
import { atom } from '../state/jotai';
import type { AwardView, CheckinInfo } from './model';

/** The latest check-in info of the signed-in account (null until read). */
export const checkinInfoAtom = atom<CheckinInfo | null>(null);

/** Awards granted and not shown yet, oldest first. */
export const awardQueueAtom = atom<AwardView[]>([]);

/** Bumped by an `award.granted` push: the popup asks the server for its list. */
export const awardsStaleAtom = atom(0);
