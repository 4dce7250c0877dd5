// Content cards (spec 1 §2 "Content card links by object type", §3 "Content
// card item"): where a card links to, by its obj_type, and the flags derived
// from an item. Paths are after the locale; `cardHref` adds it.

import { localePath } from '../router/locale';
import type { Locale } from '../router/locale';

/** A content card item as the listing calls send it (spec 1 §3). */
export interface ContentCardItem {
  obj_type: number;
  id: string | number;
  sub_obj_type?: number | null;
  /** The post kind for obj_type 4: `article`, `picture` or `video` (spec 3 §3 post types). */
  content_sub_type?: string | number | null;
  sub_channel?: string | number | null;
  channel?: number | null;
  stream?: { url?: string | null; url2?: string | null; url3?: string | null } | null;
  cover?: { url?: string | null } | null;
}

/** The obj_type values of spec 1 §2. */
export const ObjType = {
  Artwork: 1,
  Model: 2,
  Post: 4,
  Video: 5,
  Character: 9,
  EditBoard: 11,
  Workflow: 13,
  AiApp: 14,
  AiVideo: 15,
  AiAudio: 16,
  AiTool: 60,
  Activity: 61,
  /** An account (search results): its profile page. */
  Account: 100,
  /** A tag (search results; its id is the tag): the square narrowed to it. */
  Tag: 101,
} as const;

/** Where a card goes: an in-app path, or an outside address (obj_type 61's handler may give one). */
export type CardTarget = { kind: 'path'; path: string } | { kind: 'external'; url: string };

const HOME: CardTarget = { kind: 'path', path: '/' };

function seg(id: string | number): string {
  return encodeURIComponent(String(id));
}

function path(p: string): CardTarget {
  return { kind: 'path', path: p };
}

/** The AI-tool id that has its own page instead of /ai-tools/{id}. */
export const HEADSHOT_TOOL_ID = 'ai-headshot-generator';

/** obj_type 4: an article, or a picture or video post. */
export function isArticle(item: Pick<ContentCardItem, 'content_sub_type'>): boolean {
  return String(item.content_sub_type ?? '').trim().toLowerCase() === 'article';
}

/**
 * obj_type 61's link handler. Its ids are activity links: an outside http(s)
 * address opens as it is; an in-app path such as `event-center/daily/12` (the
 * task/activity mark of spec 1 §3) goes to that path; anything else goes home.
 */
export function specialLink(id: string | number): CardTarget {
  const text = String(id).trim();
  if (/^https?:\/\//i.test(text)) return { kind: 'external', url: text };
  const p = text.replace(/^\/+/, '');
  if (/^[A-Za-z0-9][\w\-./]*$/.test(p) && !p.includes('..')) return path(`/${p}`);
  return HOME;
}

/** The link of a content card, exactly as the table of spec 1 §2 (AI apps and workflows first). */
export function cardLink(item: ContentCardItem): CardTarget {
  const id = seg(item.id);
  if (isAiApp(item)) return path(`/workFlowAppDetail/${id}`);
  if (isWorkflow(item)) return path(`/workFlowDetail/${id}`);
  switch (item.obj_type) {
    case ObjType.Artwork:
      return path(`/explore/detail/${id}`);
    case ObjType.Model:
      return path(`/models/detail/${id}`);
    case ObjType.Video:
      return path(`/video/${id}`);
    case ObjType.Character:
      return path(`/cyberPubPage/${id}`);
    case ObjType.EditBoard:
      return path(`/editBoard/detail/${id}`);
    case ObjType.AiVideo:
      return path(`/ai-video/detail/${id}`);
    case ObjType.AiAudio:
      return path(`/ai-audio/detail/${id}`);
    case ObjType.AiTool:
      return String(item.id) === HEADSHOT_TOOL_ID ? path(`/${HEADSHOT_TOOL_ID}`) : path(`/ai-tools/${id}`);
    case ObjType.Activity:
      return specialLink(item.id);
    case ObjType.Post:
      return isArticle(item) ? path(`/articleDetail/${id}`) : path(`/artWorkDetail/${id}`);
    case ObjType.Account:
      return path(`/user/${id}`);
    case ObjType.Tag:
      return path(`/?${new URLSearchParams({ tag: String(item.id) }).toString()}`);
    default:
      return HOME;
  }
}

/** The href of a card in a locale (an outside address as it is). */
export function cardHref(item: ContentCardItem, locale: Locale): string {
  const target = cardLink(item);
  return target.kind === 'external' ? target.url : localePath(locale, target.path);
}

// ---------------------------------------------------------------------------
// Derived flags (spec 1 §3)

/** A model card. */
export function isModel(item: ContentCardItem): boolean {
  return item.obj_type === ObjType.Model;
}

/** A LoRA-training card: obj_type 2 with channel 1. */
export function isLoraTraining(item: ContentCardItem): boolean {
  return item.obj_type === ObjType.Model && item.channel === 1;
}

/** An AI app: obj_type 13 with sub type 3 or 4, or obj_type 14. */
export function isAiApp(item: ContentCardItem): boolean {
  return item.obj_type === ObjType.AiApp || (item.obj_type === ObjType.Workflow && (item.sub_obj_type === 3 || item.sub_obj_type === 4));
}

/** A workflow: obj_type 13 with sub type 1 or 2. */
export function isWorkflow(item: ContentCardItem): boolean {
  return item.obj_type === ObjType.Workflow && (item.sub_obj_type === 1 || item.sub_obj_type === 2);
}

/** The video extensions of spec 1 §5 ("post-success video is detected by extensions"). */
export const VIDEO_EXTENSIONS = ['mp4', 'webm', 'ogg', 'mov', 'avi', 'wmv', 'flv', 'm4v', 'mkv'] as const;

function extensionOf(url: string | null | undefined): string {
  if (!url) return '';
  const bare = url.split(/[?#]/)[0] ?? '';
  const dot = bare.lastIndexOf('.');
  return dot < 0 || dot < bare.lastIndexOf('/') ? '' : bare.slice(dot + 1).toLowerCase();
}

/** A video card: a video object (5, 15), a video post, or a stream whose file is a video. */
export function isVideo(item: ContentCardItem): boolean {
  if (item.obj_type === ObjType.Video || item.obj_type === ObjType.AiVideo) return true;
  if (String(item.content_sub_type ?? '').toLowerCase() === 'video') return true;
  const s = item.stream;
  return [s?.url, s?.url2, s?.url3].some((u) => (VIDEO_EXTENSIONS as readonly string[]).includes(extensionOf(u)));
}

/** An animated GIF card: the cover or stream is a .gif file. */
export function isGif(item: ContentCardItem): boolean {
  return [item.cover?.url, item.stream?.url, item.stream?.url2, item.stream?.url3].some((u) => extensionOf(u) === 'gif');
}

/** A daily-challenge card: its id contains `event-center/daily`. */
export function isDailyChallenge(item: ContentCardItem): boolean {
  return String(item.id).includes('event-center/daily');
}

/** The task/activity mark: obj_type 61 and an id of three segments starting with `event-center`. */
export function isActivityMark(item: ContentCardItem): boolean {
  if (item.obj_type !== ObjType.Activity) return false;
  const parts = String(item.id).replace(/^\/+|\/+$/g, '').split('/');
  return parts.length === 3 && parts[0] === 'event-center' && parts.every((p) => p !== '');
}

/** Every derived flag of an item at once. */
export interface CardFlags {
  model: boolean;
  loraTraining: boolean;
  aiApp: boolean;
  workflow: boolean;
  video: boolean;
  gif: boolean;
  dailyChallenge: boolean;
  activityMark: boolean;
}

export function cardFlags(item: ContentCardItem): CardFlags {
  return {
    model: isModel(item),
    loraTraining: isLoraTraining(item),
    aiApp: isAiApp(item),
    workflow: isWorkflow(item),
    video: isVideo(item),
    gif: isGif(item),
    dailyChallenge: isDailyChallenge(item),
    activityMark: isActivityMark(item),
  };
}
