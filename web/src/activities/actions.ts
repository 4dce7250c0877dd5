// The activities' wiring to the app: the one ActivitiesApi on the app's
// client, the ticking clock the countdowns read, and my objects for the join
// picker (public posts, characters, models) read through the existing calls.
import { useEffect, useState } from 'react';
import { api } from '../app/services';
import { myModels } from '../models/api';
import { squareApi } from '../square/actions';
import { tavernApi } from '../tavern/actions';
import { ActivitiesApi } from './api';
import type { Card } from '../square/types';
import type { MyObjects } from './model';
import { sourcesFor } from './model';
import type { ContributionType } from './types';

export const activitiesApi = new ActivitiesApi(api);

/** The time now in milliseconds, again every `everyMs` (a countdown's second hand). */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), everyMs);
    return () => window.clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** At most this many of each list are offered in the picker (the newest first). */
const PICKER_PAGES = 3;

/**
 * My objects of the kinds `allowed` takes: my public posts (`artwork/list/other`
 * with my id: what others can see, so what an activity accepts), my characters
 * and my models. Lists the types do not need are not asked for.
 */
export async function loadMyObjects(myId: string, allowed: readonly ContributionType[]): Promise<MyObjects> {
  const need = sourcesFor(allowed);
  const posts = async () => {
    const all: Card[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < PICKER_PAGES; i += 1) {
      const page = await squareApi.feed('profileWorks', { account_id: myId, page_size: 40, ...(cursor === null ? {} : { cursor }) });
      all.push(...page.items);
      cursor = page.next_cursor;
      if (cursor === null) break;
    }
    return all;
  };
  const [postList, characters, models] = await Promise.all([
    need.posts ? posts() : Promise.resolve([]),
    need.characters ? tavernApi.mine() : Promise.resolve([]),
    need.models ? myModels(api, null).then((p) => p.items) : Promise.resolve([]),
  ]);
  return { posts: postList, characters, models };
}
