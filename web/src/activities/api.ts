// Theme activities' calls on the app's API client (ACT_API.md): the lists,
// an activity's page, contributions and votes, my contributions, and the
// operators' calls. Every call is a POST under /api/v1 answering the
// envelope; the client unwraps it and throws ApiError on failure.
import type { ApiClient } from '../api/client';
import type {
  ActivityAdmin,
  ActivityDetail,
  ActivityDraft,
  ActivitySummary,
  CommitAnswer,
  ContributionType,
  Entry,
  EntryPage,
  EntrySort,
  ExcellentPeriod,
  ListStatus,
  Page,
  VoteAnswer,
} from './types';

const V1 = '/api/v1/';

/** Every path the activity pages call (after /api/v1/). */
export const ACTIVITY_PATHS = {
  list: 'theme-activity/list',
  detail: 'theme-activity/detail',
  posts: 'theme-activity/post-list',
  characterJoin: 'theme-activity/character-join',
  excellent: 'theme-activity/period-excellent-list',
  myList: 'activity/my-list',
  commit: 'activity/commit',
  myApply: 'activity/my-apply',
  vote: 'activity/vote',
  voteCancel: 'activity/vote-cancel',
  adminCreate: 'admin/activity/create',
  adminEdit: 'admin/activity/edit',
  adminList: 'admin/activity/list',
  adminClose: 'admin/activity/close',
  adminJudge: 'admin/activity/judge',
} as const;

function field(d: unknown, name: string): unknown {
  return typeof d === 'object' && d !== null ? (d as Record<string, unknown>)[name] : undefined;
}

function pageOf<T>(d: unknown): Page<T> {
  const items = field(d, 'items');
  const next = field(d, 'next_cursor');
  return { items: Array.isArray(items) ? (items as T[]) : [], next_cursor: typeof next === 'string' && next !== '' ? next : null };
}

function withCursor(body: Record<string, unknown>, cursor: string | null): Record<string, unknown> {
  return cursor === null ? body : { ...body, cursor };
}

export class ActivitiesApi {
  constructor(private readonly api: Pick<ApiClient, 'post'>) {}

  private call<T>(path: string, body: unknown = {}): Promise<T> {
    return this.api.post<T>(`${V1}${path}`, body);
  }

  async list(status: ListStatus, cursor: string | null = null, pageSize = 20): Promise<Page<ActivitySummary>> {
    return pageOf(await this.call<unknown>(ACTIVITY_PATHS.list, withCursor({ status, page_size: pageSize }, cursor)));
  }

  detail(id: string): Promise<ActivityDetail> {
    return this.call(ACTIVITY_PATHS.detail, { id });
  }

  async posts(id: string, period: number | null, sort: EntrySort, cursor: string | null = null, pageSize = 20): Promise<EntryPage> {
    const body: Record<string, unknown> = { id, sort, page_size: pageSize };
    if (period !== null) body.period = period;
    const d = await this.call<unknown>(ACTIVITY_PATHS.posts, withCursor(body, cursor));
    const p = field(d, 'period');
    return { ...pageOf<Entry>(d), period: typeof p === 'number' ? p : null };
  }

  /** The excellent list of one period, or of every judged period (newest first) when `period` is null. */
  async excellent(id: string, period: number | null = null): Promise<ExcellentPeriod[]> {
    return pageOf<ExcellentPeriod>(await this.call<unknown>(ACTIVITY_PATHS.excellent, period === null ? { id } : { id, period })).items;
  }

  /** Contributes one of the caller's objects; a character goes through `character-join`. */
  commit(type: ContributionType, objId: string, activityId: string | null): Promise<CommitAnswer> {
    if (type === 'character' && activityId !== null) return this.call(ACTIVITY_PATHS.characterJoin, { id: activityId, character_id: objId });
    const body: Record<string, unknown> = { type, obj_id: objId };
    if (activityId !== null) body.activity_id = activityId;
    return this.call(ACTIVITY_PATHS.commit, body);
  }

  async myList(cursor: string | null = null): Promise<Page<ActivitySummary>> {
    return pageOf(await this.call<unknown>(ACTIVITY_PATHS.myList, withCursor({ page_size: 20 }, cursor)));
  }

  async myApply(activityId: string | null, cursor: string | null = null, pageSize = 20): Promise<Page<Entry>> {
    const body: Record<string, unknown> = { page_size: pageSize };
    if (activityId !== null) body.activity_id = activityId;
    return pageOf(await this.call<unknown>(ACTIVITY_PATHS.myApply, withCursor(body, cursor)));
  }

  vote(entryId: string, on: boolean): Promise<VoteAnswer> {
    return this.call(on ? ACTIVITY_PATHS.vote : ACTIVITY_PATHS.voteCancel, { entry_id: entryId });
  }

  // Operators --------------------------------------------------------------

  async adminList(): Promise<ActivityAdmin[]> {
    return pageOf<ActivityAdmin>(await this.call<unknown>(ACTIVITY_PATHS.adminList, {})).items;
  }

  /** Creates an activity, or edits it when `id` is given (the full new definition). */
  save(draft: ActivityDraft, id: string | null): Promise<ActivityAdmin> {
    const body = { ...draft, cover: draft.cover === null || draft.cover === '' ? null : draft.cover };
    return id === null ? this.call(ACTIVITY_PATHS.adminCreate, body) : this.call(ACTIVITY_PATHS.adminEdit, { id, ...body });
  }

  close(id: string, period: number): Promise<ExcellentPeriod> {
    return this.call(ACTIVITY_PATHS.adminClose, { id, period });
  }

  /** Judges a closed period: with `picks` (entry ids in rank order) in picks mode, without in votes mode. */
  judge(id: string, period: number, picks: string[] | null): Promise<ExcellentPeriod> {
    return this.call(ACTIVITY_PATHS.adminJudge, picks === null ? { id, period } : { id, period, picks });
  }
}
