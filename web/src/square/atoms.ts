// Atoms of the square: the home feed's filters (kept while visiting a
// work), the viewer's own reactions to works as last answered by the server
// (so a like on a detail page shows on its card, and back), follows by
// account, and the NSFW choices.
import { atom } from '../state/jotai';
import { DEFAULT_FILTERS } from './filters';
import type { FeedFilters } from './filters';
import type { ReactionAnswer } from './types';

export const homeFiltersAtom = atom<FeedFilters>(DEFAULT_FILTERS);

/** The newest reaction answers by work id: they win over what a card was loaded with. */
export const reactionsAtom = atom<Readonly<Record<string, ReactionAnswer>>>({});

/** The newest follow state by account id (`following`, and the follower count when known). */
export const followsAtom = atom<Readonly<Record<string, { following: boolean; followers: number | null }>>>({});

/** The key under which the NSFW opt-in is kept in this browser. */
export const SHOW_NSFW_KEY = 'easel.square.showNsfw';

function storedShowNsfw(): boolean {
  try {
    return globalThis.localStorage?.getItem(SHOW_NSFW_KEY) === '1';
  } catch {
    return false;
  }
}

const showNsfwBase = atom<boolean>(storedShowNsfw());

/** The viewer opted in to see NSFW works unblurred (kept in localStorage). */
export const showNsfwAtom = atom(
  (get) => get(showNsfwBase),
  (_get, set, on: boolean) => {
    set(showNsfwBase, on);
    try {
      globalThis.localStorage?.setItem(SHOW_NSFW_KEY, on ? '1' : '0');
    } catch {
      // Private mode: the choice lasts for this page only.
    }
  },
);

/** Works whose blur the viewer lifted one by one (this page session). */
export const revealedAtom = atom<ReadonlySet<string>>(new Set<string>());
