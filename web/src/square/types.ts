// Wire types of the square (protocol/src/square/*.rs): content cards and
// feeds, works, likes and follows, profiles, comments, search and
// notifications. Field names exactly as on the wire; keep in step by hand.

import type { ActivityMark } from '../activities/types';

/** obj_type of an account card (search results). */
export const ACCOUNT_OBJ_TYPE = 100;
/** obj_type of a tag card (search results; its id is the tag). */
export const TAG_OBJ_TYPE = 101;
/** obj_type of a post (picture, article, video). */
export const POST_OBJ_TYPE = 4;

export interface CardAuthor {
  id: string;
  name: string;
  avatar?: string | null;
  /** The image URL of the avatar ornament worn (the ornament shop). */
  ornament?: string | null;
}

export interface Cover {
  url: string;
  width: number;
  height: number;
}

/** One content card (`protocol::square::Card`). */
export interface Card {
  obj_type: number;
  sub_obj_type?: number | null;
  /** Posts: picture, article or video. */
  content_sub_type?: string | null;
  channel?: number | null;
  sub_channel?: string | null;
  id: string;
  title: string;
  cover: Cover;
  stream?: { url: string; url2?: string | null; url3?: string | null } | null;
  image_count: number;
  author: CardAuthor;
  tags: string[];
  nsfw: boolean;
  likes: number;
  collects: number;
  comments: number;
  views: number;
  liked: boolean;
  collected: boolean;
  create_at: number;
  /** The image URL of the work frame the work wears (the ornament shop). */
  frame?: string | null;
  /** The content rating (from the classifier's score, the operator's thresholds and the author's mark). */
  rating?: 'safe' | 'suggestive' | 'nsfw';
  /** The activity the work was last contributed to (ACT_API.md "Content cards"); absent otherwise. */
  activity_mark?: ActivityMark | null;
}

export type OrderBy = 'recommend' | 'follows' | 'hot' | 'new';
export type TimeType = 'all' | 'day' | 'week' | 'month';
export type OutputType = 'picture' | 'article' | 'video';

/** The body of every feed call. */
export interface FeedRequest {
  order_by?: OrderBy;
  time_type?: TimeType;
  page_size?: number;
  cursor?: string;
  output_types?: OutputType[];
  tag?: string;
  account_id?: string;
  /** A visitor's NSFW mode (a signed-in account's own setting wins on the server). */
  nsfw_mode?: 'blur' | 'hide' | 'show';
}

export interface FeedPage {
  items: Card[];
  next_cursor: string | null;
}

export type Visibility = 'public' | 'followers' | 'private';
export type PostKind = 'picture' | 'article' | 'video';

export interface GenParams {
  prompt: string;
  negative_prompt: string;
  model: string;
  model_name: string;
  seed: number;
  width: number;
  height: number;
  steps: number;
  cfg_scale: number;
  sampler: string;
  action: number;
  engine: string;
  neural: boolean;
}

export interface WorkImage {
  url: string;
  width: number;
  height: number;
}

/** `artwork/detail` and `post/detail`. */
export interface WorkDetail {
  id: string;
  obj_type: number;
  kind: PostKind;
  title: string;
  description: string;
  tags: string[];
  visibility: Visibility;
  nsfw: boolean;
  /** The NSFW classifier's rating of its pictures, when they were scored. */
  rating?: 'safe' | 'suggestive' | 'nsfw' | null;
  nsfw_score?: number | null;
  author: CardAuthor;
  images: WorkImage[];
  video_url?: string | null;
  /** A task's video: its HLS master playlist. */
  hls_url?: string | null;
  /** Video posts: plays so far. */
  plays?: number;
  /** Articles: the author's Markdown and the server-sanitised HTML. */
  content?: string | null;
  content_html?: string | null;
  params: GenParams[];
  hide_params: boolean;
  task_ids: string[];
  likes: number;
  collects: number;
  comments: number;
  views: number;
  liked: boolean;
  collected: boolean;
  following: boolean;
  create_at: number;
  update_at: number;
  /** The image URL of the work frame the work wears (the ornament shop). */
  frame?: string | null;
  /** The owner only: a moderator hid the work or took it out of the feeds, and why. */
  moderation?: { state: 'hidden' | 'feed_banned'; reason: string; at: number } | null;
  /** The owner only: their appeal on this work and its decision. */
  appeal?: { appeal_id: string; status: 'open' | 'kept' | 'changed'; reason: string } | null;
}

export interface PublishPictureRequest {
  task_ids: string[];
  title: string;
  description: string;
  tags: string[];
  visibility: Visibility;
  nsfw: boolean;
  hide_params: boolean;
  images: string[];
}

/** `post/video/add` from a finished video task (protocol `PublishVideoRequest`; the server takes the task's poster). */
export interface PublishVideoRequest {
  task_id: string;
  title: string;
  description: string;
  tags: string[];
  visibility: Visibility;
  nsfw: boolean;
}

/** Why a video post is reported (protocol/src/character_extras.rs `ReportReason`). */
export type VideoReportReason = 'sexual_minors' | 'hate' | 'violence' | 'spam' | 'impersonation' | 'other';

export interface PublishArticleRequest {
  title: string;
  content: string;
  tags: string[];
  visibility: Visibility;
  nsfw: boolean;
  cover?: string | null;
}

export interface EditWorkRequest {
  id: string;
  title?: string;
  description?: string;
  content?: string;
  tags?: string[];
  visibility?: Visibility;
  nsfw?: boolean;
  hide_params?: boolean;
  cover?: string;
}

export interface ReactionAnswer {
  id: string;
  liked: boolean;
  collected: boolean;
  likes: number;
  collects: number;
}

export interface FollowAnswer {
  account_id: string;
  following: boolean;
  followers: number;
}

export interface AccountCard {
  id: string;
  name: string;
  avatar?: string | null;
  followers: number;
  works: number;
  following: boolean;
}

export interface AccountPage {
  items: AccountCard[];
  next_cursor: string | null;
}

export interface Profile {
  id: string;
  name: string;
  avatar?: string | null;
  bio: string;
  followers: number;
  following: number;
  works: number;
  likes_received: number;
  followed: boolean;
  me: boolean;
  create_at: number;
  /** The account's own NSFW mode (answered to itself only). */
  nsfw_mode?: 'blur' | 'hide' | 'show' | null;
  /** The links the account set in its settings (http or https). */
  links?: string[];
}

export interface ProfileEdit {
  name?: string;
  bio?: string;
  avatar?: string;
  /** The account's NSFW mode. */
  nsfw_mode?: 'blur' | 'hide' | 'show';
}

/** `moderation`: a moderator's decision on the reader's content or appeal (issue 20); `text` is the reason. */
export type NotificationKind = 'like' | 'collect' | 'comment' | 'reply' | 'follow' | 'moderation' | 'activity';

export interface Notification {
  id: string;
  kind: NotificationKind;
  actor: CardAuthor;
  obj_id?: string | null;
  obj_type?: number | null;
  text: string;
  create_at: number;
  read: boolean;
  /** Frame 13 only: unread notifications after this one. */
  unread: number;
}

export interface NotificationPage {
  items: Notification[];
  next_cursor: string | null;
  unread: number;
}

export type CommentOrder = 'new' | 'top';

export interface CommentView {
  id: string;
  obj_id: string;
  obj_type: number;
  content: string;
  author: CardAuthor;
  like_count: number;
  liked: boolean;
  parent_id: string | null;
  reply_count: number;
  replies: CommentView[];
  can_delete: boolean;
  create_at: number;
}

export interface CommentPage {
  items: CommentView[];
  next_cursor: string | null;
  total: number;
}

export interface CreateCommentRequest {
  obj_id: string;
  obj_type: number;
  content: string;
  parent_id?: string;
  scene?: string;
  source?: string;
}

export interface EmojiItem {
  shortcode: string;
  emoji: string;
}

export interface TermCount {
  text: string;
  count: number;
}

/** The kind filter of search results. */
export type SearchKind = 'all' | 'work' | 'article' | 'character' | 'account' | 'tag';
export const SEARCH_KINDS: readonly SearchKind[] = ['all', 'work', 'article', 'character', 'account', 'tag'];
