// The square's actions on the app's API client and store: likes, collects
// and follows write the server's answer into the shared atoms, so every card
// and page showing the same work or account agrees.
import { loginDialogAtom, loggedInAtom } from '../account/atoms';
import { api } from '../app/services';
import { appStore } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import { SquareApi } from './api';
import { accountNsfwModeAtom, followsAtom, isNsfwMode, nsfwModeAtom, reactionsAtom } from './atoms';
import type { NsfwMode } from './atoms';
import type { FollowAnswer, ReactionAnswer } from './types';

export const squareApi = new SquareApi(api);

/** Visitors are asked to log in first; answers whether the viewer is logged in. */
export function requireLogin(store: AppStore = appStore): boolean {
  if (store.get(loggedInAtom)) return true;
  store.set(loginDialogAtom, { open: true, step: 'login' });
  return false;
}

export function recordReaction(answer: ReactionAnswer, store: AppStore = appStore): void {
  store.set(reactionsAtom, { ...store.get(reactionsAtom), [answer.id]: answer });
}

export function recordFollow(answer: FollowAnswer, store: AppStore = appStore): void {
  store.set(followsAtom, { ...store.get(followsAtom), [answer.account_id]: { following: answer.following, followers: answer.followers } });
}

export async function setLiked(id: string, on: boolean, store: AppStore = appStore): Promise<ReactionAnswer | null> {
  if (!requireLogin(store)) return null;
  const answer = await squareApi.like(id, on);
  recordReaction(answer, store);
  return answer;
}

export async function setCollected(id: string, on: boolean, store: AppStore = appStore): Promise<ReactionAnswer | null> {
  if (!requireLogin(store)) return null;
  const answer = await squareApi.collect(id, on);
  recordReaction(answer, store);
  return answer;
}

export async function setFollowing(accountId: string, on: boolean, store: AppStore = appStore): Promise<FollowAnswer | null> {
  if (!requireLogin(store)) return null;
  const answer = await squareApi.follow(accountId, on);
  recordFollow(answer, store);
  return answer;
}

/** A card or work with the newest reaction the viewer made applied. */
export function withReaction<T extends { id: string; liked: boolean; likes: number; collected: boolean; collects: number }>(
  item: T,
  reactions: Readonly<Record<string, ReactionAnswer>>,
): T {
  const r = reactions[item.id];
  return r ? { ...item, liked: r.liked, likes: r.likes, collected: r.collected, collects: r.collects } : item;
}

/**
 * Sets the viewer's NSFW mode: a signed-in account's is saved on the server
 * (`account/profile/edit`), so every browser of the account gets it; a
 * visitor's stays in this browser. A refused save restores the mode before.
 */
export async function saveNsfwMode(
  mode: NsfwMode,
  store: AppStore = appStore,
  sq: Pick<SquareApi, 'editProfile'> = squareApi,
): Promise<void> {
  const before = store.get(accountNsfwModeAtom);
  store.set(nsfwModeAtom, mode);
  if (before === null) return;
  try {
    const saved = await sq.editProfile({ nsfw_mode: mode });
    if (isNsfwMode(saved.nsfw_mode)) store.set(accountNsfwModeAtom, saved.nsfw_mode);
  } catch (e) {
    store.set(accountNsfwModeAtom, before);
    throw e;
  }
}
