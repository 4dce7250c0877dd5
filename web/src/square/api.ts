// The square's calls on the app's API client (DESIGN.md "Works and the
// square"): feeds, works, reactions, follows, profiles, comments, search and
// notifications. Every call is a POST under /api/v1 answering the envelope;
// the client unwraps it and throws ApiError on failure.
import type { ApiClient } from '../api/client';
import type {
  AccountPage,
  CommentOrder,
  CommentPage,
  CreateCommentRequest,
  EditWorkRequest,
  EmojiItem,
  FeedPage,
  FeedRequest,
  FollowAnswer,
  NotificationPage,
  Profile,
  ProfileEdit,
  PublishArticleRequest,
  PublishPictureRequest,
  PublishVideoRequest,
  ReactionAnswer,
  SearchKind,
  TermCount,
  VideoReportReason,
  Visibility,
  WorkDetail,
} from './types';

import { storedVisitorNsfwMode } from './atoms';

const V1 = '/api/v1/';

/** The feeds the app lists, by the call that serves them. */
export const FEED_PATHS = {
  /** The home square (every post kind), with `order_by` and the filters. */
  home: 'square/v3/recommend',
  posts: 'square/v3/post/list',
  artwork: 'square/v3/artwork/list',
  /** A profile's public works (`account_id`). */
  profileWorks: 'artwork/list/other',
  /** The viewer's own works, every visibility. */
  myWorks: 'artwork/list',
  /** The viewer's collections. */
  collections: 'square/v3/collect/list',
  /** The works a profile liked (`account_id`). */
  profileLikes: 'account/like/list',
} as const;
export type FeedName = keyof typeof FEED_PATHS;

/** Items of an `{items: [...]}` answer (an empty list for anything else). */
function items<T>(d: unknown): T[] {
  const v = typeof d === 'object' && d !== null ? (d as { items?: unknown }).items : undefined;
  return Array.isArray(v) ? (v as T[]) : [];
}

/** Hot terms and history come as `{text, count}`; tags may come as plain strings. */
function terms(d: unknown): TermCount[] {
  return items<unknown>(d).flatMap((x): TermCount[] => {
    if (typeof x === 'string') return [{ text: x, count: 0 }];
    if (typeof x === 'object' && x !== null && typeof (x as TermCount).text === 'string') {
      const t = x as Partial<TermCount> & { text: string };
      return [{ text: t.text, count: typeof t.count === 'number' ? t.count : 0 }];
    }
    return [];
  });
}

function page<T>(d: unknown): { items: T[]; next_cursor: string | null } {
  const c = typeof d === 'object' && d !== null ? (d as { next_cursor?: unknown }).next_cursor : null;
  return { items: items<T>(d), next_cursor: typeof c === 'string' && c !== '' ? c : null };
}

export class SquareApi {
  constructor(private readonly api: Pick<ApiClient, 'post'>) {}

  private call<T>(path: string, body: unknown = {}): Promise<T> {
    return this.api.post<T>(`${V1}${path}`, body);
  }

  // Feeds ------------------------------------------------------------------

  async feed(name: FeedName, req: FeedRequest): Promise<FeedPage> {
    return page(await this.call<unknown>(FEED_PATHS[name], { nsfw_mode: storedVisitorNsfwMode(), ...req }));
  }

  // Works ------------------------------------------------------------------

  publishPicture(req: PublishPictureRequest): Promise<{ id: string }> {
    return this.call('post/portfolio/add_v2', req);
  }

  publishArticle(req: PublishArticleRequest): Promise<{ id: string }> {
    return this.call('post/article/add', req);
  }

  /** Posts a finished video task (`post/video/add`); answers the new work's id. */
  publishVideo(req: PublishVideoRequest): Promise<{ id: string }> {
    return this.call('post/video/add', req);
  }

  /** A video post's page (`ai-video/detail`); other posts answer NotFound. */
  videoDetail(id: string): Promise<WorkDetail> {
    return this.call('ai-video/detail', { id });
  }

  /** Counts one play of a video post (`ai-video/play`); answers the plays so far. */
  async videoPlay(id: string): Promise<number> {
    const d = await this.call<unknown>('ai-video/play', { id });
    const plays = typeof d === 'object' && d !== null ? (d as { plays?: unknown }).plays : 0;
    return typeof plays === 'number' ? plays : 0;
  }

  /** Reports someone else's video post (`ai-video/report`); answers whether it replaced the caller's earlier report. */
  async reportVideo(id: string, reason: VideoReportReason, detail: string): Promise<boolean> {
    const d = await this.call<unknown>('ai-video/report', { id, reason, detail: detail.trim() });
    return typeof d === 'object' && d !== null && (d as { updated?: unknown }).updated === true;
  }

  /** Edits a work; the call depends on its kind. */
  edit(kind: 'picture' | 'article' | 'video', req: EditWorkRequest): Promise<WorkDetail> {
    const path = kind === 'article' ? 'post/article/edit' : kind === 'video' ? 'post/video/edit' : 'portfolio/edit';
    return this.call(path, req);
  }

  /** A work's page: `artwork/detail` for pictures and videos, `post/detail` for articles. */
  detail(id: string, article = false): Promise<WorkDetail> {
    return this.call(article ? 'post/detail' : 'artwork/detail', { id });
  }

  async remove(id: string): Promise<void> {
    await this.call<unknown>('artwork/delete', { id });
  }

  async setVisibility(id: string, visibility: Visibility): Promise<void> {
    await this.call<unknown>('artwork/visibility', { id, visibility });
  }

  like(id: string, on: boolean): Promise<ReactionAnswer> {
    return this.call(on ? 'artwork/like' : 'artwork/like-cancel', { id });
  }

  collect(id: string, on: boolean): Promise<ReactionAnswer> {
    return this.call(on ? 'artwork/collect' : 'artwork/collect-cancel', { id });
  }

  // Accounts ---------------------------------------------------------------

  follow(accountId: string, on: boolean): Promise<FollowAnswer> {
    return this.call(on ? 'account/follow' : 'account/follow-cancel', { account_id: accountId });
  }

  async accounts(list: 'followers' | 'following', accountId: string, cursor: string | null): Promise<AccountPage> {
    const body: Record<string, unknown> = { account_id: accountId };
    if (cursor !== null) body.cursor = cursor;
    return page(await this.call<unknown>(`account/${list}`, body));
  }

  profile(accountId: string): Promise<Profile> {
    return this.call('account/profile', { account_id: accountId });
  }

  editProfile(edit: ProfileEdit): Promise<Profile> {
    return this.call('account/profile/edit', edit);
  }

  // Notifications ----------------------------------------------------------

  async notifications(cursor: string | null): Promise<NotificationPage> {
    const d = await this.call<unknown>('notification/list', cursor === null ? {} : { cursor });
    const unread = typeof d === 'object' && d !== null ? (d as { unread?: unknown }).unread : 0;
    return { ...page(d), unread: typeof unread === 'number' ? unread : 0 };
  }

  async markAllRead(): Promise<void> {
    await this.call<unknown>('notification/read', {});
  }

  // Comments ---------------------------------------------------------------

  async comments(obj: { obj_id: string; obj_type: number }, order: CommentOrder, cursor: string | null): Promise<CommentPage> {
    const body: Record<string, unknown> = { ...obj, order };
    if (cursor !== null) body.cursor = cursor;
    const d = await this.call<unknown>('comment2/list', body);
    const total = typeof d === 'object' && d !== null ? (d as { total?: unknown }).total : 0;
    return { ...page(d), total: typeof total === 'number' ? total : 0 };
  }

  async replies(obj: { obj_id: string; obj_type: number }, parentId: string, cursor: string | null): Promise<CommentPage> {
    const body: Record<string, unknown> = { ...obj, parent_id: parentId };
    if (cursor !== null) body.cursor = cursor;
    const d = await this.call<unknown>('comment2/replies-list', body);
    return { ...page(d), total: 0 };
  }

  createComment(req: CreateCommentRequest): Promise<{ id: string }> {
    return this.call(req.parent_id ? 'comment2/add-replies' : 'comment2/create', req);
  }

  async likeComment(id: string, on: boolean): Promise<void> {
    await this.call<unknown>('comment2/like', { id, cancel: !on });
  }

  async deleteComment(id: string): Promise<void> {
    await this.call<unknown>('comment2/delete', { id });
  }

  async emoji(): Promise<EmojiItem[]> {
    return items<EmojiItem>(await this.call<unknown>('comment2/emoji/list', {})).filter(
      (e) => typeof e.shortcode === 'string' && typeof e.emoji === 'string',
    );
  }

  // Search -----------------------------------------------------------------

  async complete(keyword: string, signal?: AbortSignal): Promise<string[]> {
    const d = await this.api.post<unknown>(`${V1}square/search/complete`, { keyword }, signal ? { signal } : {});
    return items<unknown>(d).filter((x): x is string => typeof x === 'string');
  }

  async search(keyword: string, kind: SearchKind, cursor: string | null): Promise<FeedPage> {
    const body: Record<string, unknown> = { keyword, kind, nsfw_mode: storedVisitorNsfwMode() };
    if (cursor !== null) body.cursor = cursor;
    return page(await this.call<unknown>('square/v3/search/list', body));
  }

  async hotTerms(): Promise<TermCount[]> {
    return terms(await this.call<unknown>('search/hot/v2', {}));
  }

  async history(): Promise<TermCount[]> {
    return terms(await this.call<unknown>('search/history', {}));
  }

  async clearHistory(): Promise<void> {
    await this.call<unknown>('search/history/clear', {});
  }

  async deleteHistory(keyword: string): Promise<void> {
    await this.call<unknown>('search/history/del', { keyword });
  }

  async hotTags(): Promise<TermCount[]> {
    return terms(await this.call<unknown>('tag/hot', {}));
  }
}
