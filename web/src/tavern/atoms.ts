// Atoms of the tavern: each chat session's message log, the session on
// screen, and the counters that ask the page to read state again.
import { atom } from '../state/jotai';
import type { CharacterQuery } from './api';
import type { ChatLog } from './model';

/** Loaded message logs by session id. */
export const chatLogsAtom = atom<Readonly<Record<string, ChatLog>>>({});

/** The chat session on screen, or null. */
export const openSessionAtom = atom<string | null>(null);

/** Replies that finished in sessions not on screen, by session id (a badge in the session list). */
export const sessionBadgesAtom = atom<Readonly<Record<string, number>>>({});

/** Bumped when the open session should read its newest reply again (reconnect, lost frames, a gap). */
export const chatResyncAtom = atom(0);

/** Bumped when a reply finished: the session list (last message, order) is read again. */
export const sessionListStaleAtom = atom(0);

/** The grid's filters (kept while visiting a character). */
export const characterQueryAtom = atom<CharacterQuery>({
  order_by: 'new',
  genders: [],
  character_type: 0,
  keyword: '',
});
