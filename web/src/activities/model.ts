// The activities' pure rules for the pages: which of my objects fit which
// contribution type (the join picker), whether I may join or vote now, the
// prize of a rank, and applying a vote's answer to a loaded list.
import type { Card } from '../square/types';
import { periodStatus } from './time';
import type { ActivityDetail, ContributionType, Entry, Period, VoteAnswer } from './types';
import { CONTRIBUTION_TYPES } from './types';

/** One of my objects that may be contributed: its type, id, title and picture. */
export interface Candidate {
  type: ContributionType;
  obj_id: string;
  title: string;
  cover: string | null;
}

/** The contribution type of one of my posts (spec 3 §3): picture posts are `work`, video posts `local_video`, articles `article`. */
export function postType(card: Pick<Card, 'content_sub_type'>): ContributionType {
  const kind = String(card.content_sub_type ?? 'picture').toLowerCase();
  if (kind === 'article') return 'article';
  if (kind === 'video') return 'local_video';
  return 'work';
}

/** The contribution type of a model by its kind; embeddings have none. */
export function modelType(modelKind: string): ContributionType | null {
  if (modelKind === 'checkpoint') return 'model_Checkpoint';
  if (modelKind === 'lora') return 'model_LORA';
  return null;
}

/** The raw lists the picker reads: my public posts, my characters, my models. */
export interface MyObjects {
  posts: readonly Card[];
  characters: readonly { id: string; name: string; avatar: string; published: boolean | null }[];
  models: readonly { model_id: string; name: string; model_type: string; publish_status: number; cover: string | null }[];
}

/** Spec 3 §3 publish_status of a published model. */
const MODEL_PUBLISHED = 1;

/**
 * The objects I may pick for an activity that takes `allowed` types, in the
 * order of the types: published characters and published models only (drafts
 * are refused by the server), embeddings never, and nothing twice.
 */
export function candidates(mine: MyObjects, allowed: readonly ContributionType[]): Candidate[] {
  const all: Candidate[] = [
    ...mine.posts.map((c) => ({ type: postType(c), obj_id: c.id, title: c.title, cover: c.cover.url === '' ? null : c.cover.url })),
    ...mine.characters.filter((c) => c.published !== false).map((c) => ({ type: 'character' as const, obj_id: c.id, title: c.name, cover: c.avatar === '' ? null : c.avatar })),
    ...mine.models.flatMap((m): Candidate[] => {
      const type = modelType(m.model_type);
      return type === null || m.publish_status !== MODEL_PUBLISHED ? [] : [{ type, obj_id: m.model_id, title: m.name, cover: m.cover }];
    }),
  ];
  const seen = new Set<string>();
  const order = (t: ContributionType) => CONTRIBUTION_TYPES.indexOf(t);
  return all
    .filter((c) => allowed.includes(c.type))
    .filter((c) => {
      const key = `${c.type}:${c.obj_id}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => order(a.type) - order(b.type));
}

/** Which of my lists the picker must read for these types (so a works-only activity asks no model list). */
export function sourcesFor(allowed: readonly ContributionType[]): { posts: boolean; characters: boolean; models: boolean } {
  return {
    posts: allowed.some((t) => t === 'work' || t === 'local_video' || t === 'article'),
    characters: allowed.includes('character'),
    models: allowed.some((t) => t === 'model_Checkpoint' || t === 'model_LORA'),
  };
}

/** The live period of an activity at `now`, or null. */
export function livePeriod(periods: readonly Period[], now: number): Period | null {
  return periods.find((p) => periodStatus(p, now) === 'live') ?? null;
}

/** Why I cannot join now, or null when I can: `login`, `closed` (no live period) or `limit` (my entries reached max in this period). */
export type JoinBlock = 'login' | 'closed' | 'limit' | null;

/**
 * Whether the Join button works. `myEntriesInPeriod` counts my contributions
 * in the live period (from `my-apply`); the server checks it again.
 */
export function joinBlock(activity: Pick<ActivityDetail, 'periods' | 'max_entries'>, loggedIn: boolean, myEntriesInPeriod: number, now: number): JoinBlock {
  if (livePeriod(activity.periods, now) === null) return 'closed';
  if (!loggedIn) return 'login';
  if (myEntriesInPeriod >= activity.max_entries) return 'limit';
  return null;
}

/** Whether a vote button shows on an entry: votes mode, its period live, and not my own entry. */
export function canVote(activity: Pick<ActivityDetail, 'judging' | 'periods'>, entry: Pick<Entry, 'period' | 'author'>, myId: string | null, now: number): boolean {
  if (activity.judging !== 'votes' || entry.period === null) return false;
  const period = activity.periods.find((p) => p.index === entry.period);
  if (period === undefined || periodStatus(period, now) !== 'live') return false;
  return myId === null || entry.author.id !== myId;
}

/** The prize of rank `rank` (1-based), 0 beyond the list. */
export function prizeOf(prizes: readonly number[], rank: number): number {
  return rank >= 1 ? (prizes[rank - 1] ?? 0) : 0;
}

/** A loaded list with a vote's answer applied to its entry. */
export function applyVote(entries: readonly Entry[], answer: VoteAnswer): Entry[] {
  return entries.map((e) => (e.entry_id === answer.entry_id ? { ...e, votes: answer.votes, voted: answer.voted } : e));
}

/** How many of `entries` (mine, from my-apply) sit in `activityId`'s period `period` and still count. */
export function myEntriesIn(entries: readonly Entry[], activityId: string, period: number): number {
  return entries.filter((e) => e.activity_id === activityId && e.period === period && e.status !== 'removed').length;
}

/** Where an entry's object lives (a path after the locale): the work, the character or the model page. */
export function entryPath(entry: Pick<Entry, 'type' | 'obj_id'>): string {
  const id = encodeURIComponent(entry.obj_id);
  switch (entry.type) {
    case 'article':
      return `/articleDetail/${id}`;
    case 'work':
    case 'local_video':
      return `/artWorkDetail/${id}`;
    case 'character':
      return `/tavern/character/${id}`;
    case 'model_Checkpoint':
    case 'model_LORA':
      return `/models/detail/${id}`;
  }
}
