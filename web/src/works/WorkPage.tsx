import { useMemo, useState } from 'react';
import { accountAtom, loggedInAtom } from '../account/atoms';
import { isApiError } from '../api/client';
import { Link } from '../app/Link';
import { showToast } from '../app/toast';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, navigate } from '../router/router';
import { squareApi, setCollected, withReaction } from '../square/actions';
import { reactionsAtom } from '../square/atoms';
import { FollowButton } from '../square/FollowButton';
import { profilePath, tagPath } from '../square/route';
import type { Visibility, WorkDetail } from '../square/types';
import { LikeButton, shortCount, useBlurred } from '../square/WorkCard';
import { OrnamentAvatar, WorkFrameOverlay } from '../ornaments/OrnamentAvatar';
import { WorkFramePicker } from '../ornaments/WorkFramePicker';
import { appStore, useAtomValue } from '../state/jotai';
import { ConfirmDialog } from '../tavern/ConfirmDialog';
import { useErrorText } from '../tavern/useErrorText';
import { useLoaded } from '../tavern/useLoaded';
import { Comments } from './Comments';
import { EditWorkDialog } from './EditWorkDialog';
import { ParamsPanel } from './ParamsPanel';
import { oncePerView, workVideoOutput } from './videoWork';
import { VideoPlayer } from '../video/VideoPlayer';
import { OwnerNotice } from '../moderation/OwnerNotice';
import { ReportButton } from '../moderation/ReportDialog';
import { surveysApi } from '../surveys/services';
import '../square/square.css';
import './works.css';

/** The answer codes that mean the work is not there for this viewer. */
function isMissing(e: unknown): boolean {
  return isApiError(e) && (e.code === 40400 || e.key === 'NotFound' || e.code === 40300);
}

/** `/artWorkDetail/{id}` and `/articleDetail/{id}`: a work's page. */
export function WorkPage({ id, article }: { id: string; article: boolean }) {
  const t = useT();
  const errorText = useErrorText();
  const loggedIn = useAtomValue(loggedInAtom);
  const work = useLoaded(() => squareApi.detail(id, article), [id, article, loggedIn], null as WorkDetail | null);

  if (work.failed && isMissing(work.error)) {
    return (
      <section className="hero" data-testid="work-missing">
        <h1>{t('works.missing.title')}</h1>
        <p>{t('works.missing.text')}</p>
        <p>
          <Link to={localePath(appStore.get(localeAtom), '/')}>{t('works.missing.home')}</Link>
        </p>
      </section>
    );
  }
  if (work.failed) {
    return (
      <p className="sq-note sq-error" role="alert">
        {errorText(work.error)}{' '}
        <button type="button" className="button button--link" onClick={work.reload}>
          {t('square.retry')}
        </button>
      </p>
    );
  }
  if (work.value === null || work.value.id !== id) {
    return (
      <p className="sq-note" aria-live="polite">
        {t('square.loading')}
      </p>
    );
  }
  return <WorkView work={work.value} onChanged={(w) => work.setValue(w)} />;
}

function WorkView({ work: loaded, onChanged }: { work: WorkDetail; onChanged: (w: WorkDetail) => void }) {
  const t = useT();
  const errorText = useErrorText();
  const locale = useAtomValue(localeAtom);
  const me = useAtomValue(accountAtom)?.id ?? null;
  const work = withReaction(loaded, useAtomValue(reactionsAtom));
  const mine = me !== null && me === work.author.id;
  const [blurred, reveal] = useBlurred(work.id, work.nsfw);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [plays, setPlays] = useState<number | null>(work.video_url ? (work.plays ?? null) : null);
  const video = workVideoOutput(work);
  // One play counted per page view, when playback first starts.
  const countPlay = useMemo(() => oncePerView(() => squareApi.videoPlay(work.id), setPlays), [work.id, setPlays]);

  async function collect() {
    setError(null);
    try {
      await setCollected(work.id, !work.collected);
    } catch (e) {
      setError(errorText(e));
    }
  }

  async function share() {
    const url = new URL(window.location.pathname, window.location.origin).toString();
    try {
      await navigator.clipboard.writeText(url);
      showToast(appStore, t('works.shareCopied'));
    } catch {
      showToast(appStore, url);
    }
  }

  // A short link on the instance (`url/short`), for signed-in viewers.
  async function shareShort() {
    try {
      const link = await surveysApi.shorten(window.location.pathname);
      try {
        await navigator.clipboard.writeText(link.cloud_cdn);
        showToast(appStore, t('shortlink.copied'));
      } catch {
        showToast(appStore, link.cloud_cdn);
      }
    } catch (e) {
      setError(errorText(e));
    }
  }

  async function changeVisibility(v: Visibility) {
    setBusy(true);
    setError(null);
    try {
      await squareApi.setVisibility(work.id, v);
      onChanged({ ...loaded, visibility: v });
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  async function remove() {
    setBusy(true);
    setError(null);
    try {
      await squareApi.remove(work.id);
      setDeleting(false);
      showToast(appStore, t('works.deleted'));
      navigate(appStore, localePath(locale, profilePath(work.author.id)), { replace: true });
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  }

  const isArticle = work.kind === 'article';
  return (
    <article className={`work${isArticle ? ' work--article' : ''}`} data-testid="work-page" data-id={work.id}>
      <div className="work__main">
        {isArticle ? (
          <>
            {work.images[0] && (
              <div className={work.frame ? 'orn-framed' : undefined}>
                <img className="work__article-cover" src={work.images[0].url} alt="" />
                <WorkFrameOverlay url={work.frame} />
              </div>
            )}
            {/* The server sanitised content_html (backend/src/square/markdown.rs); it is the only HTML shown. */}
            <div className="work__article" data-testid="article-body" dangerouslySetInnerHTML={{ __html: work.content_html ?? '' }} />
          </>
        ) : (
          <div className="work__media">
            {video && (
              <div className="work__player" data-testid="work-video">
                <VideoPlayer output={video} label={t('works.video', { title: work.title || t('square.card.untitled') })} onPlaying={countPlay} />
              </div>
            )}
            {!video &&
              work.images.map((img, i) => (
                <figure key={img.url} className="work__figure">
                  <WorkFrameOverlay url={work.frame} />
                  <img
                    src={img.url}
                    width={img.width || undefined}
                    height={img.height || undefined}
                    alt={t('works.picture', { index: i + 1, count: work.images.length, title: work.title })}
                    className={blurred ? 'sq-blur' : undefined}
                    data-testid="work-image"
                  />
                  {blurred && i === 0 && (
                    <div className="sq-nsfw">
                      <span>{t('square.nsfw.label')}</span>
                      <button type="button" className="button button--small" onClick={reveal} data-testid="nsfw-reveal">
                        {t('square.nsfw.reveal')}
                      </button>
                    </div>
                  )}
                </figure>
              ))}
          </div>
        )}
      </div>
      <aside className="work__side">
        <h1 className="work__title">{work.title || t('square.card.untitled')}</h1>
        {(work.rating || work.nsfw) && (
          <p className="work__rating" data-testid="work-rating">
            {t('square.nsfw.rating', { rating: t(`square.nsfw.rating.${work.rating ?? 'nsfw'}`) })}
          </p>
        )}
        <div className="work__author">
          <Link to={localePath(locale, profilePath(work.author.id))} className="work__author-link" data-testid="work-author">
            <OrnamentAvatar name={work.author.name} url={work.author.avatar} ornament={work.author.ornament} size={36} />
            <span>{work.author.name}</span>
          </Link>
          {!mine && <FollowButton accountId={work.author.id} following={work.following} />}
        </div>
        <div className="work__actions" role="group" aria-label={t('works.actions')}>
          <LikeButton id={work.id} liked={work.liked} likes={work.likes} />
          <button type="button" className={`button${work.collected ? ' button--primary' : ''}`} aria-pressed={work.collected} onClick={() => void collect()} data-testid="collect-button">
            {work.collected ? t('works.collected') : t('works.collect')} · {shortCount(work.collects)}
          </button>
          <button type="button" className="button" onClick={() => void share()}>
            {t('works.share')}
          </button>
          {me !== null && (
            <button type="button" className="button" onClick={() => void shareShort()} data-testid="share-short">
              {t('shortlink.copy')}
            </button>
          )}
          {me !== null && !mine && <ReportButton obj={{ obj_id: work.id, obj_type: work.obj_type }} />}
        </div>
        {mine && <OwnerNotice obj={{ obj_id: work.id, obj_type: work.obj_type }} work={work} />}
        {mine && <WorkFramePicker workId={work.id} frame={work.frame} onChange={(frame) => onChanged({ ...loaded, frame })} />}
        {error !== null && (
          <p className="sq-error" role="alert">
            {error}
          </p>
        )}
        <p className="muted work__stats">
          {t('works.stats', { views: shortCount(work.views), comments: shortCount(work.comments) })} ·{' '}
          <time dateTime={new Date(work.create_at).toISOString()}>{new Date(work.create_at).toLocaleDateString()}</time>
          {plays !== null && (
            <>
              {' · '}
              <span data-testid="work-plays">{t('works.plays', { plays: shortCount(plays) })}</span>
            </>
          )}
          {work.visibility !== 'public' && <> · {t(`works.visibility.${work.visibility}`)}</>}
        </p>
        {work.description !== '' && <p className="work__description">{work.description}</p>}
        {work.tags.length > 0 && (
          <ul className="work__tags" aria-label={t('works.tags')}>
            {work.tags.map((tag) => (
              <li key={tag}>
                <Link to={localePath(locale, tagPath(tag))}>#{tag}</Link>
              </li>
            ))}
          </ul>
        )}
        {!isArticle && <ParamsPanel work={work} />}
        {mine && (
          <div className="work__owner" role="group" aria-label={t('works.owner')}>
            <label className="work__visibility">
              {t('works.visibilityLabel')}
              <select value={work.visibility} disabled={busy} onChange={(e) => void changeVisibility(e.target.value as Visibility)}>
                {(['public', 'followers', 'private'] as const).map((v) => (
                  <option key={v} value={v}>
                    {t(`works.visibility.${v}`)}
                  </option>
                ))}
              </select>
            </label>
            <button type="button" className="button" onClick={() => setEditing(true)}>
              {t('works.edit')}
            </button>
            <button type="button" className="button button--danger" onClick={() => setDeleting(true)}>
              {t('works.delete')}
            </button>
          </div>
        )}
      </aside>
      <section className="work__comments">
        <Comments
          obj={{ obj_id: work.id, obj_type: work.obj_type }}
          workAuthor={work.author.id}
          count={work.comments}
          onCount={(delta) => onChanged({ ...loaded, comments: Math.max(0, loaded.comments + delta) })}
        />
      </section>
      {editing && (
        <EditWorkDialog
          work={loaded}
          onClose={() => setEditing(false)}
          onSaved={(w) => {
            setEditing(false);
            onChanged(w);
          }}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={t('works.deleteTitle')}
          message={t('works.deleteText', { title: work.title || t('square.card.untitled') })}
          confirmLabel={t('works.delete')}
          variant="danger"
          pending={busy}
          error={error}
          onConfirm={() => void remove()}
          onCancel={() => setDeleting(false)}
        />
      )}
    </article>
  );
}
