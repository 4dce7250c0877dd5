import { memo, useState } from 'react';
import { Link } from '../app/Link';
import { ActivityBadge } from '../cards/ActivityBadge';
import { CardLink } from '../cards/CardLink';
import { useErrorText } from '../tavern/useErrorText';
import { useT } from '../i18n/useT';
import { OrnamentAvatar, WorkFrameOverlay } from '../ornaments/OrnamentAvatar';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue, useSetAtom } from '../state/jotai';
import { setLiked, withReaction } from './actions';
import { nsfwModeAtom, reactionsAtom, revealedAtom, showNsfwAtom } from './atoms';
import { profilePath } from './route';
import { ACCOUNT_OBJ_TYPE, TAG_OBJ_TYPE } from './types';
import type { Card } from './types';

/** A count as people read it: 999, 1.2k, 3.4M. */
export function shortCount(n: number): string {
  if (n < 1000) return String(Math.max(0, n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, '')}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

/** Whether a card's picture is blurred for this viewer. */
export function useBlurred(id: string, nsfw: boolean): [boolean, () => void] {
  const showNsfw = useAtomValue(showNsfwAtom);
  const revealed = useAtomValue(revealedAtom);
  const setRevealed = useSetAtom(revealedAtom);
  const blurred = nsfw && !showNsfw && !revealed.has(id);
  return [blurred, () => setRevealed((s) => new Set([...s, id]))];
}

export function Avatar({ name, url, size = 24 }: { name: string; url?: string | null | undefined; size?: number }) {
  const initial = [...name.trim()][0]?.toUpperCase() ?? '?';
  return url ? (
    <img className="sq-avatar" src={url} alt="" width={size} height={size} style={{ width: size, height: size }} />
  ) : (
    <span className="sq-avatar sq-avatar--initial" aria-hidden="true" style={{ width: size, height: size, fontSize: size * 0.5 }}>
      {initial}
    </span>
  );
}

/** The like toggle of a card or a work: the server's answer is what shows. */
export function LikeButton({ id, liked, likes, small = false }: { id: string; liked: boolean; likes: number; small?: boolean }) {
  const t = useT();
  const errorText = useErrorText();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function toggle() {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await setLiked(id, !liked);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <button
      type="button"
      className={`sq-like${liked ? ' sq-like--on' : ''}${small ? ' sq-like--small' : ''}`}
      aria-pressed={liked}
      aria-label={t(liked ? 'square.card.unlike' : 'square.card.like')}
      title={error ?? undefined}
      disabled={busy}
      onClick={() => void toggle()}
      data-testid="like-button"
    >
      <span aria-hidden="true">{liked ? '♥' : '♡'}</span>
      <span className="sq-like__count" data-testid="like-count">
        {shortCount(likes)}
      </span>
    </button>
  );
}

/** A card's rating: the server's, else from `nsfw` (older servers). */
export function cardRating(card: Pick<Card, 'nsfw' | 'rating'>): 'safe' | 'suggestive' | 'nsfw' {
  if (card.nsfw) return 'nsfw';
  return card.rating === 'suggestive' || card.rating === 'nsfw' ? card.rating : 'safe';
}

/** One content card of a feed (spec 1 §3): cover, title, author, likes; NSFW blurred until revealed. */
export const WorkCard = memo(function WorkCard({ card: loaded }: { card: Card }) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const card = withReaction(loaded, useAtomValue(reactionsAtom));
  const [blurred, reveal] = useBlurred(card.id, card.nsfw);
  const nsfwMode = useAtomValue(nsfwModeAtom);
  if (card.obj_type === ACCOUNT_OBJ_TYPE) return <AccountTile card={card} />;
  if (card.obj_type === TAG_OBJ_TYPE) return <TagTile card={card} />;
  // Mode `hide`: NSFW works are left out of feeds altogether.
  if (card.nsfw && nsfwMode === 'hide') return null;
  const kind = card.content_sub_type ?? 'picture';
  const rating = cardRating(card);
  return (
    <article className="sq-card" data-testid="work-card" data-id={card.id} data-kind={kind}>
      <div className="sq-card__cover">
        <CardLink item={card} className="sq-card__cover-link" tabIndex={-1} aria-hidden="true">
          {card.cover.url !== '' ? (
            <img src={card.cover.url} alt="" loading="lazy" className={blurred ? 'sq-blur' : undefined} draggable={false} />
          ) : (
            <span className="sq-card__text-cover">{card.title || t('square.card.untitled')}</span>
          )}
        </CardLink>
        <WorkFrameOverlay url={card.frame} />
        {card.image_count > 1 && (
          <span className="sq-card__stack" aria-label={t('square.card.pictures', { count: card.image_count })}>
            ▣ {card.image_count}
          </span>
        )}
        <ActivityBadge card={card} />
        {kind !== 'picture' && <span className="sq-card__kind">{t(kind === 'article' ? 'square.kind.article' : 'square.kind.video')}</span>}
        {rating !== 'safe' && (
          <span
            className={`sq-card__rating sq-card__rating--${rating}`}
            data-testid={rating === 'nsfw' ? 'nsfw-badge' : 'rating-badge'}
            data-rating={rating}
            title={t('square.nsfw.rating', { rating: t(`square.nsfw.rating.${rating}`) })}
          >
            {rating === 'nsfw' ? t('square.nsfw.badge') : t('square.nsfw.rating.suggestive')}
          </span>
        )}
        {blurred && (
          <div className="sq-nsfw">
            <span>{t('square.nsfw.label')}</span>
            <button type="button" className="button button--small" onClick={reveal} data-testid="nsfw-reveal">
              {t('square.nsfw.reveal')}
            </button>
          </div>
        )}
      </div>
      <div className="sq-card__body">
        <CardLink item={card} className="sq-card__title">
          {card.title || t('square.card.untitled')}
        </CardLink>
        <div className="sq-card__meta">
          <Link to={localePath(locale, profilePath(card.author.id))} className="sq-card__author">
            <OrnamentAvatar name={card.author.name} url={card.author.avatar} ornament={card.author.ornament} size={20} />
            <span>{card.author.name}</span>
          </Link>
          <LikeButton id={card.id} liked={card.liked} likes={card.likes} small />
        </div>
      </div>
    </article>
  );
});

/** An account in search results (obj_type 100): its picture and name, linking to the profile. */
function AccountTile({ card }: { card: Card }) {
  const t = useT();
  return (
    <article className="sq-card sq-card--account" data-testid="account-card" data-id={card.id}>
      <CardLink item={card} className="sq-account">
        <Avatar name={card.title} url={card.cover.url || null} size={72} />
        <span className="sq-account__name">{card.title}</span>
        <span className="muted">{t('square.card.account')}</span>
      </CardLink>
    </article>
  );
}

/** A tag in search results (obj_type 101): links to the square narrowed to it. */
function TagTile({ card }: { card: Card }) {
  const t = useT();
  return (
    <article className="sq-card sq-card--account" data-testid="tag-card" data-id={card.id}>
      <CardLink item={card} className="sq-account">
        <span className="sq-tag-tile__mark" aria-hidden="true">
          #
        </span>
        <span className="sq-account__name">#{card.title}</span>
        <span className="muted">{t('square.card.tag')}</span>
      </CardLink>
    </article>
  );
}
