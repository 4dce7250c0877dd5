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
 * marked by their authors): `blur` (the default: blurred with a Show
 * control), `hide` (left out of feeds and lists by the server), `show`
 * (accounts only). A signed-in account's mode is its account setting
 * (`account/info`, `account/profile/edit`); a visitor's is kept in this
 * browser and sent with feed requests, and may be blur or hide only.
 */
export type NsfwMode = 'blur' | 'hide' | 'show';
export const NSFW_MODES: readonly NsfwMode[] = ['blur', 'hide', 'show'];
/** What a visitor may choose (like Civitai: showing needs an account). */
export const VISITOR_NSFW_MODES: readonly NsfwMode[] = ['blur', 'hide'];

export function isNsfwMode(m: unknown): m is NsfwMode {
  return m === 'blur' || m === 'hide' || m === 'show';
}

/** The visitor's mode kept in this browser (show reads as blur). */
export function storedVisitorNsfwMode(): NsfwMode {
  try {
    const m = globalThis.localStorage?.getItem(NSFW_MODE_KEY);
    if (m === 'hide') return 'hide';
    return 'blur';
  } catch {
    return 'blur';
  }
}

const visitorModeBase = atom<NsfwMode>(storedVisitorNsfwMode());

/** The signed-in account's mode as the server last answered it (null: not known / visitor). */
export const accountNsfwModeAtom = atom<NsfwMode | null>(null);

/** The modes the viewer may choose from. */
export const nsfwModesAtom = atom((get) => (get(accountNsfwModeAtom) !== null ? NSFW_MODES : VISITOR_NSFW_MODES));

/**
 * The viewer's NSFW mode: the account's setting when signed in, else the
 * browser's. Writing it as a visitor keeps it in localStorage; the account's
 * is written by `saveNsfwMode` (square/actions.ts), which sets it here too.
 */
export const nsfwModeAtom = atom(
  (get) => get(accountNsfwModeAtom) ?? get(visitorModeBase),
  (get, set, mode: NsfwMode) => {
    if (get(accountNsfwModeAtom) !== null) {
      set(accountNsfwModeAtom, mode);
      return;
    }
    const m = mode === 'show' ? 'blur' : mode;
    set(visitorModeBase, m);
    try {
      globalThis.localStorage?.setItem(NSFW_MODE_KEY, m);
      globalThis.localStorage?.setItem(SHOW_NSFW_KEY, '0');
    } catch {
      // Private mode: the choice lasts for this page only.
    }
  },
);

/** The viewer sees NSFW works unblurred (mode `show`). */
export const showNsfwAtom = atom((get) => get(nsfwModeAtom) === 'show');

/** Works whose blur the viewer lifted one by one (this page session). */
export const revealedAtom = atom<ReadonlySet<string>>(new Set<string>());
