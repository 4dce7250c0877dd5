import { useCallback, useId, useState } from 'react';
import type { FormEvent } from 'react';
import { accountAtom, loggedInAtom } from '../account/atoms';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { requireLogin, squareApi } from '../square/actions';
import { profilePath } from '../square/route';
import type { CommentOrder, CommentView, EmojiItem } from '../square/types';
import { usePaged } from '../square/usePaged';
import { shortCount } from '../square/WorkCard';
import { OBJ } from '../moderation/api';
import { ReportButton } from '../moderation/ReportDialog';
import { OrnamentAvatar } from '../ornaments/OrnamentAvatar';
import { useAtomValue } from '../state/jotai';
import { ConfirmDialog } from '../tavern/ConfirmDialog';
import { useErrorText } from '../tavern/useErrorText';
import { useLoaded } from '../tavern/useLoaded';
import { emojiTable, renderEmoji, shortcodeText } from './emoji';
import type { EmojiTable } from './emoji';
import { chars, MAX_COMMENT_CHARS } from './publish';

interface Obj {
  obj_id: string;
  obj_type: number;
}

let emojiList: Promise<EmojiItem[]> | null = null;

/** The server's emoji list, read once per page session. */
function loadEmoji(): Promise<EmojiItem[]> {
  emojiList ??= squareApi.emoji().catch((e: unknown) => {
    emojiList = null;
    throw e;
  });
  return emojiList;
}

/** Per-comment changes made on this page: likes, deletions, replies read or written. */
interface Local {
  likes: Record<string, { liked: boolean; like_count: number }>;
  deleted: ReadonlySet<string>;
  replies: Record<string, { items: CommentView[]; cursor: string | null; done: boolean }>;
}

const NO_LOCAL: Local = { likes: {}, deleted: new Set(), replies: {} };

/** A work's comment section (spec 3 §7 Comments): newest or top, replies one level deep, emoji shortcodes. */
export function Comments({ obj, workAuthor, count, onCount }: { obj: Obj; workAuthor: string; count: number; onCount?: (delta: number) => void }) {
  const t = useT();
  const errorText = useErrorText();
  const loggedIn = useAtomValue(loggedInAtom);
  const [order, setOrder] = useState<CommentOrder>('new');
  const [round, setRound] = useState(0);
  const [local, setLocal] = useState<Local>(NO_LOCAL);
  const emoji = useLoaded(async () => emojiTable(await loadEmoji()), [], emojiTable([]) as EmojiTable);
  const picker = useLoaded(() => loadEmoji(), [], [] as EmojiItem[]);
  const load = useCallback((cursor: string | null) => squareApi.comments(obj, order, cursor), [obj, order]);
  const list = usePaged(load, (c: CommentView) => c.id, [obj.obj_id, obj.obj_type, order, round, loggedIn]);
  const total = Math.max(0, count);

  function posted() {
    setLocal(NO_LOCAL);
    setRound((r) => r + 1);
    onCount?.(1);
  }

  const ctx: ItemCtx = { obj, workAuthor, emoji: emoji.value, picker: picker.value, local, setLocal, onPosted: posted, onDeleted: () => onCount?.(-1) };
  const shown = list.state.items.filter((c) => !local.deleted.has(c.id));
  return (
    <div className="comments" data-testid="comments">
      <div className="comments__head">
        <h2 className="work__h2">{t('works.comments.title', { count: shortCount(total) })}</h2>
        <div className="tabs comments__order" role="tablist" aria-label={t('works.comments.order')}>
          {(['new', 'top'] as const).map((o) => (
            <button key={o} type="button" role="tab" className="tabs__tab" aria-selected={order === o} onClick={() => setOrder(o)}>
              {t(o === 'new' ? 'works.comments.new' : 'works.comments.top')}
            </button>
          ))}
        </div>
      </div>
      <Composer obj={obj} parentId={null} picker={picker.value} onPosted={posted} />
      <ul className="comments__list">
        {shown.map((c) => (
          <CommentItem key={c.id} comment={c} ctx={ctx} />
        ))}
      </ul>
      {list.state.error !== null && (
        <p className="sq-error" role="alert">
          {errorText(list.state.error)}{' '}
          <button type="button" className="button button--link" onClick={list.retry}>
            {t('square.retry')}
          </button>
        </p>
      )}
      {list.state.loading && <p className="muted">{t('square.loading')}</p>}
      {list.state.loaded && !list.state.loading && shown.length === 0 && list.state.error === null && <p className="muted">{t('works.comments.none')}</p>}
      {!list.state.loading && list.state.cursor !== null && (
        <button type="button" className="button" onClick={list.more}>
          {t('works.comments.more')}
        </button>
      )}
    </div>
  );
}

interface ItemCtx {
  obj: Obj;
  workAuthor: string;
  emoji: EmojiTable;
  picker: EmojiItem[];
  local: Local;
  setLocal: (f: (l: Local) => Local) => void;
  onPosted: () => void;
  onDeleted: () => void;
}

function CommentItem({ comment, ctx, parent = null }: { comment: CommentView; ctx: ItemCtx; parent?: string | null }) {
  const t = useT();
  const errorText = useErrorText();
  const locale = useAtomValue(localeAtom);
  const me = useAtomValue(accountAtom)?.id ?? null;
  const [replying, setReplying] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const like = ctx.local.likes[comment.id] ?? { liked: comment.liked, like_count: comment.like_count };
  const canDelete = comment.can_delete || (me !== null && (me === comment.author.id || me === ctx.workAuthor));
  const read = ctx.local.replies[comment.id];
  const replies = parent === null ? mergeReplies(comment.replies, read?.items ?? []).filter((r) => !ctx.local.deleted.has(r.id)) : [];
  const moreReplies = parent === null && !read?.done && comment.reply_count > replies.length;

  async function toggleLike() {
    if (!requireLogin()) return;
    setError(null);
    const next = !like.liked;
    try {
      await squareApi.likeComment(comment.id, next);
      ctx.setLocal((l) => ({ ...l, likes: { ...l.likes, [comment.id]: { liked: next, like_count: Math.max(0, like.like_count + (next ? 1 : -1)) } } }));
    } catch (e) {
      setError(errorText(e));
    }
  }

  async function remove() {
    setBusy(true);
    setError(null);
    try {
      await squareApi.deleteComment(comment.id);
      setDeleting(false);
      ctx.setLocal((l) => ({ ...l, deleted: new Set([...l.deleted, comment.id]) }));
      ctx.onDeleted();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  async function loadReplies() {
    setBusy(true);
    setError(null);
    try {
      const page = await squareApi.replies(ctx.obj, comment.id, read?.cursor ?? null);
      ctx.setLocal((l) => {
        const before = l.replies[comment.id]?.items ?? [];
        return { ...l, replies: { ...l.replies, [comment.id]: { items: mergeReplies(before, page.items), cursor: page.next_cursor, done: page.next_cursor === null } } };
      });
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <li className={`comment${parent !== null ? ' comment--reply' : ''}`} data-testid="comment" data-id={comment.id}>
      <Link to={localePath(locale, profilePath(comment.author.id))} className="comment__avatar" tabIndex={-1} aria-hidden="true">
        <OrnamentAvatar name={comment.author.name} url={comment.author.avatar} ornament={comment.author.ornament} size={parent === null ? 32 : 24} />
      </Link>
      <div className="comment__body">
        <p className="comment__line">
          <Link to={localePath(locale, profilePath(comment.author.id))} className="comment__author">
            {comment.author.name}
          </Link>
          <time className="muted" dateTime={new Date(comment.create_at).toISOString()}>
            {new Date(comment.create_at).toLocaleString()}
          </time>
        </p>
        <p className="comment__text" data-testid="comment-text">
          {renderEmoji(comment.content, ctx.emoji)}
        </p>
        <div className="comment__ops">
          <button type="button" className={`button button--link${like.liked ? ' comment__liked' : ''}`} aria-pressed={like.liked} onClick={() => void toggleLike()}>
            {like.liked ? '♥' : '♡'} {like.like_count}
          </button>
          <button type="button" className="button button--link" onClick={() => (requireLogin() ? setReplying((r) => !r) : undefined)}>
            {t('works.comments.reply')}
          </button>
          {canDelete && (
            <button type="button" className="button button--link" onClick={() => setDeleting(true)}>
              {t('works.comments.delete')}
            </button>
          )}
          {me !== null && me !== comment.author.id && (
            <ReportButton
              obj={{ obj_id: comment.id, obj_type: OBJ.comment }}
              label={t('moderation.report.openFor.30', { name: comment.author.name })}
              className="button button--link"
              testId="comment-report"
            />
          )}
        </div>
        {error !== null && (
          <p className="sq-error" role="alert">
            {error}
          </p>
        )}
        {replying && (
          <Composer
            obj={ctx.obj}
            parentId={parent ?? comment.id}
            prefill={parent !== null ? `@${comment.author.name} ` : ''}
            picker={ctx.picker}
            onPosted={() => {
              setReplying(false);
              ctx.onPosted();
            }}
          />
        )}
        {replies.length > 0 && (
          <ul className="comments__replies">
            {replies.map((r) => (
              <CommentItem key={r.id} comment={r} ctx={ctx} parent={comment.id} />
            ))}
          </ul>
        )}
        {moreReplies && (
          <button type="button" className="button button--link" disabled={busy} onClick={() => void loadReplies()}>
            {t('works.comments.moreReplies', { count: comment.reply_count - replies.length })}
          </button>
        )}
      </div>
      {deleting && (
        <ConfirmDialog
          title={t('works.comments.deleteTitle')}
          message={t('works.comments.deleteText')}
          confirmLabel={t('works.comments.delete')}
          variant="danger"
          pending={busy}
          error={error}
          onConfirm={() => void remove()}
          onCancel={() => setDeleting(false)}
        />
      )}
    </li>
  );
}

function mergeReplies(a: readonly CommentView[], b: readonly CommentView[]): CommentView[] {
  const out = [...a];
  for (const r of b) if (!out.some((x) => x.id === r.id)) out.push(r);
  return out.sort((x, y) => x.create_at - y.create_at);
}

/** The comment box (a top-level comment, or a reply under `parentId`), with the emoji list. */
function Composer({ obj, parentId, prefill = '', picker, onPosted }: { obj: Obj; parentId: string | null; prefill?: string; picker: EmojiItem[]; onPosted: () => void }) {
  const t = useT();
  const errorText = useErrorText();
  const loggedIn = useAtomValue(loggedInAtom);
  const [text, setText] = useState(prefill);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [emojiOpen, setEmojiOpen] = useState(false);
  const id = useId();
  const length = chars(text.trim());
  const tooLong = length > MAX_COMMENT_CHARS;

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!requireLogin() || length === 0 || tooLong || busy) return;
    setBusy(true);
    setError(null);
    try {
      await squareApi.createComment({ ...obj, content: text.trim(), ...(parentId !== null ? { parent_id: parentId } : {}), source: 'web' });
      setText('');
      onPosted();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="comment-form" onSubmit={(e) => void submit(e)} data-testid={parentId === null ? 'comment-form' : 'reply-form'}>
      <label htmlFor={id} className="visually-hidden">
        {parentId === null ? t('works.comments.write') : t('works.comments.writeReply')}
      </label>
      <textarea
        id={id}
        className="comment-form__input"
        rows={parentId === null ? 3 : 2}
        value={text}
        placeholder={loggedIn ? (parentId === null ? t('works.comments.write') : t('works.comments.writeReply')) : t('works.comments.loginFirst')}
        onChange={(e) => setText(e.target.value)}
        onFocus={() => (loggedIn ? undefined : requireLogin())}
      />
      <div className="comment-form__bar">
        {picker.length > 0 && (
          <button type="button" className="button button--small" aria-expanded={emojiOpen} onClick={() => setEmojiOpen((o) => !o)}>
            {t('works.comments.emoji')}
          </button>
        )}
        <span className={`muted comment-form__count${tooLong ? ' sq-error' : ''}`}>
          {length}/{MAX_COMMENT_CHARS}
        </span>
        <button type="submit" className="button button--primary button--small" disabled={busy || length === 0 || tooLong}>
          {parentId === null ? t('works.comments.send') : t('works.comments.sendReply')}
        </button>
      </div>
      {emojiOpen && (
        <div className="comment-form__emoji" role="group" aria-label={t('works.comments.emoji')}>
          {picker.map((e) => (
            <button key={e.shortcode} type="button" className="icon-button" title={shortcodeText(e)} onClick={() => setText((s) => `${s}${shortcodeText(e)}`)}>
              {e.emoji}
            </button>
          ))}
        </div>
      )}
      {error !== null && (
        <p className="sq-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
