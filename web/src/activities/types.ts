// Wire types of theme activities (issue 22 part 1; /work/shared ACT_API.md,
// the backend's protocol/src/activity): activities and their periods,
// contributions (entries), excellent lists, and the operators' definitions.
// Field names exactly as on the wire; times in milliseconds. Keep in step by hand.
import type { Card } from '../square/types';
import type { PeriodStatus } from './time';

/** Spec 3 §3 contribution types, spelled exactly. */
export const CONTRIBUTION_TYPES = ['work', 'local_video', 'article', 'character', 'model_Checkpoint', 'model_LORA'] as const;
export type ContributionType = (typeof CONTRIBUTION_TYPES)[number];
/** The types that may be committed without an activity (spec 3 §3). */
export const TYPES_WITHOUT_ACTIVITY: readonly ContributionType[] = ['work', 'local_video', 'article'];

export type Judging = 'votes' | 'picks';

export interface Period {
  index: number;
  start: number;
  end: number;
  status: PeriodStatus;
}

export interface ActivitySummary {
  id: string;
  title: string;
  cover: { url: string } | null;
  status: 'upcoming' | 'live' | 'ended';
  daily: boolean;
  judging: Judging;
  types: ContributionType[];
  prizes: number[];
  periods: Period[];
  current_period: number | null;
  start: number;
  end: number;
  card_id: string;
  obj_type: number;
  entries: number;
  max_entries: number;
  create_at: number;
  /** `activity/my-list` only. */
  my_entries?: number;
}

export interface ActivityDetail extends ActivitySummary {
  /** The Markdown rules rendered and sanitised by the server (like articles). */
  rules_html: string;
  joined: boolean;
  my_entries: number;
}

export interface ActivityAdmin extends ActivityDetail {
  rules: string;
  excellent_count: number;
  period_entries: number[];
}

export type EntryStatus = 'entered' | 'excellent' | 'not_selected' | 'published' | 'removed';

export interface EntryAuthor {
  id: string;
  name: string;
  avatar?: string | null;
}

/** A contribution. */
export interface Entry {
  entry_id: string;
  activity_id: string | null;
  period: number | null;
  type: ContributionType;
  obj_id: string;
  obj_type: number;
  title: string;
  cover: { url: string } | null;
  author: EntryAuthor;
  votes: number;
  voted: boolean;
  create_at: number;
  status: EntryStatus;
  rank: number | null;
  prize: number | null;
  /** A square card for works (obj_type 4); null for characters and models. */
  card: Card | null;
  /** `activity/my-apply` only. */
  activity_title?: string | null;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export interface EntryPage extends Page<Entry> {
  period: number | null;
}

export interface Winner {
  rank: number;
  prize: number;
  entry: Entry;
}

/** One period's excellent list. */
export interface ExcellentPeriod {
  period: number;
  start: number;
  end: number;
  status: PeriodStatus;
  judged_at: number | null;
  judging: Judging;
  winners: Winner[];
}

export interface CommitAnswer {
  entry_id: string;
  activity_id: string | null;
  period: number | null;
  status: EntryStatus;
}

export interface VoteAnswer {
  entry_id: string;
  votes: number;
  voted: boolean;
}

export type ListStatus = 'live' | 'upcoming' | 'ended' | 'all';
export type EntrySort = 'new' | 'top';

/** What an operator sends to create or edit an activity (edit adds `id`). */
export interface ActivityDraft {
  title: string;
  rules: string;
  cover: string | null;
  periods: { start: number; end: number }[];
  types: ContributionType[];
  prizes: number[];
  judging: Judging;
  daily: boolean;
  max_entries: number;
  excellent_count: number;
}

/** The mark a work card carries when it was committed to an activity (ACT_API.md "Content cards"). */
export interface ActivityMark {
  id: string;
  obj_type: number;
  title: string;
  activity_id: string;
  period: number | null;
  daily: boolean;
}
