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

/** The key under which the viewer's NSFW mode is kept in this browser. */
export const NSFW_MODE_KEY = 'easel.square.nsfwMode';

/**
 * What the viewer sees of NSFW works (rated by the server's classifier or
 * marked by their authors): `blur` (the default, for visitors too: blurred
 * with a Show control), `hide` (left out of feeds), `show` (opted in).
 */
export type NsfwMode = 'blur' | 'hide' | 'show';
export const NSFW_MODES: readonly NsfwMode[] = ['blur', 'hide', 'show'];

function storedNsfwMode(): NsfwMode {
  try {
    const m = globalThis.localStorage?.getItem(NSFW_MODE_KEY);
    if (m === 'blur' || m === 'hide' || m === 'show') return m;
    // The older on/off opt-in.
    return globalThis.localStorage?.getItem(SHOW_NSFW_KEY) === '1' ? 'show' : 'blur';
  } catch {
    return 'blur';
  }
}

const nsfwModeBase = atom<NsfwMode>(storedNsfwMode());

/** The viewer's NSFW mode (kept in localStorage). */
export const nsfwModeAtom = atom(
  (get) => get(nsfwModeBase),
  (_get, set, mode: NsfwMode) => {
    set(nsfwModeBase, mode);
    try {
      globalThis.localStorage?.setItem(NSFW_MODE_KEY, mode);
      globalThis.localStorage?.setItem(SHOW_NSFW_KEY, mode === 'show' ? '1' : '0');
    } catch {
      // Private mode: the choice lasts for this page only.
    }
  },
);

/** The viewer opted in to see NSFW works unblurred (mode `show`). */
export const showNsfwAtom = atom(
  (get) => get(nsfwModeBase) === 'show',
  (_get, set, on: boolean) => {
    set(nsfwModeAtom, on ? 'show' : 'blur');
  },
);

/** Works whose blur the viewer lifted one by one (this page session). */
export const revealedAtom = atom<ReadonlySet<string>>(new Set<string>());
