// The daily-challenge badge and the task/activity mark on a content card
// (spec 1 §3): read from the mark a work card carries (`activity_mark`,
// ACT_API.md "Content cards") or from the card itself when it is an
// activity card (obj_type 61). Pure; the badge links like an obj_type 61 card.
import { isActivityMark, isDailyChallenge, ObjType } from './cardLink';
import type { ContentCardItem } from './cardLink';

/** The mark as a work card carries it. */
export interface CardActivityMark {
  id: string;
  obj_type: number;
  title?: string | null;
}

/** What a card's badge shows: the daily challenge or an activity, the item its link follows, and the activity's title. */
export interface ActivityBadgeInfo {
  kind: 'daily' | 'activity';
  item: ContentCardItem;
  title: string;
}

/**
 * The badge of a card, or null. A mark counts when it is a daily challenge
 * (its id contains `event-center/daily`) or a task/activity mark (obj_type 61,
 * three segments starting with `event-center`); anything else shows nothing.
 */
export function activityBadge(card: { obj_type: number; id: string | number; title?: string | null; activity_mark?: CardActivityMark | null }): ActivityBadgeInfo | null {
  const mark: CardActivityMark | null =
    card.activity_mark ?? (card.obj_type === ObjType.Activity ? { id: String(card.id), obj_type: card.obj_type, title: card.title ?? '' } : null);
  if (mark === null) return null;
  const item: ContentCardItem = { obj_type: mark.obj_type, id: mark.id };
  const title = (mark.title ?? '').trim();
  if (isDailyChallenge(item)) return { kind: 'daily', item, title };
  if (isActivityMark(item)) return { kind: 'activity', item, title };
  return null;
}
