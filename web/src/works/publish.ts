// The publish and edit forms' checks, the same as the server's
// (protocol/src/square/work.rs): a title of at most 100 characters, a
// description of at most 2000, at most 10 tags of 1 to 30 letters, digits,
// spaces, `_` or `-`; no control characters. A failed check names the
// server's message key, so the form shows the text the server would.
import type { PublishPictureRequest, PublishVideoRequest, Visibility } from '../square/types';

export const MAX_TITLE_CHARS = 100;
export const MAX_DESCRIPTION_CHARS = 2000;
export const MAX_ARTICLE_CHARS = 50_000;
export const MAX_TAGS = 10;
export const MAX_TAG_CHARS = 30;
export const MAX_IMAGES_PER_POST = 20;
export const MAX_COMMENT_CHARS = 1000;
export const MAX_BIO_CHARS = 500;

export type ProblemKey = 'WorkTitleTooLong' | 'WorkTextTooLong' | 'WorkTextInvalid' | 'WorkTagInvalid' | 'WorkTooManyTags' | 'square.publish.noImage';

/** Characters as the user sees them (Unicode scalar values, as the server counts). */
export function chars(s: string): number {
  return [...s].length;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const TAG_CHARS = /^[\p{L}\p{N}\p{M} _-]+$/u;

export function checkTitle(title: string): ProblemKey | null {
  const t = title.trim();
  if (chars(t) > MAX_TITLE_CHARS) return 'WorkTitleTooLong';
  if (CONTROL.test(t)) return 'WorkTextInvalid';
  return null;
}

export function checkBody(text: string, max: number): ProblemKey | null {
  const t = text.trim();
  if (chars(t) > max) return 'WorkTextTooLong';
  if (CONTROL_BUT_LINES.test(t)) return 'WorkTextInvalid';
  return null;
}

/** Splits what the user typed in the tags field (commas or new lines) into tags. */
export function splitTags(text: string): string[] {
  return text.split(/[,，\n]/).map((t) => t.trim()).filter((t) => t !== '');
}

/**
 * Tags as the server keeps them: trimmed, a leading `#` dropped, inner spaces
 * folded, duplicates (ignoring case) dropped keeping the first spelling.
 */
export function normaliseTags(tags: readonly string[]): { tags: string[]; problem: ProblemKey | null } {
  const out: string[] = [];
  for (const raw of tags) {
    const t = raw.trim().replace(/^#+/, '').trim().split(/\s+/).filter(Boolean).join(' ');
    if (t === '') continue;
    if (chars(t) > MAX_TAG_CHARS || !TAG_CHARS.test(t)) return { tags: out, problem: 'WorkTagInvalid' };
    if (!out.some((o) => o.toLowerCase() === t.toLowerCase())) out.push(t);
  }
  return { tags: out, problem: out.length > MAX_TAGS ? 'WorkTooManyTags' : null };
}

/** What the publish dialog holds. */
export interface PublishForm {
  title: string;
  description: string;
  /** As typed: comma-separated. */
  tags: string;
  visibility: Visibility;
  nsfw: boolean;
  hideParams: boolean;
  /** The chosen pictures (URLs of the task's outputs). */
  images: string[];
}

export type PublishField = 'title' | 'description' | 'tags' | 'images';

export type Checked = { ok: true; request: PublishPictureRequest } | { ok: false; problems: Partial<Record<PublishField, ProblemKey>> };

type Problems = Partial<Record<PublishField, ProblemKey>>;

/** The title, description and tags of `form`: their problems, and the tags as the server keeps them. */
function checkTexts(form: PublishForm): { problems: Problems; tags: string[] } {
  const problems: Problems = {};
  const title = checkTitle(form.title);
  if (title) problems.title = title;
  const description = checkBody(form.description, MAX_DESCRIPTION_CHARS);
  if (description) problems.description = description;
  const tags = normaliseTags(splitTags(form.tags));
  if (tags.problem) problems.tags = tags.problem;
  return { problems, tags: tags.tags };
}

/** Checks the form for the tasks `taskIds`; answers the request to send, or each field's problem. */
export function checkPublish(form: PublishForm, taskIds: readonly string[]): Checked {
  const { problems, tags } = checkTexts(form);
  if (form.images.length === 0 || form.images.length > MAX_IMAGES_PER_POST) problems.images = 'square.publish.noImage';
  if (Object.keys(problems).length > 0) return { ok: false, problems };
  return {
    ok: true,
    request: {
      task_ids: [...taskIds],
      title: form.title.trim(),
      description: form.description.trim(),
      tags,
      visibility: form.visibility,
      nsfw: form.nsfw,
      hide_params: form.hideParams,
      images: [...form.images],
    },
  };
}

export type CheckedVideo = { ok: true; request: PublishVideoRequest } | { ok: false; problems: Partial<Record<PublishField, ProblemKey>> };

/**
 * Checks the form for posting the video task `taskId` (`post/video/add`):
 * the same texts as a picture post; no picture choice (the server posts the
 * task's first video with its poster) and no hidden parameters.
 */
export function checkPublishVideo(form: PublishForm, taskId: string): CheckedVideo {
  const { problems, tags } = checkTexts(form);
  if (Object.keys(problems).length > 0) return { ok: false, problems };
  return {
    ok: true,
    request: {
      task_id: taskId,
      title: form.title.trim(),
      description: form.description.trim(),
      tags,
      visibility: form.visibility,
      nsfw: form.nsfw,
    },
  };
}
