// One contribution in a grid: its picture and title (linking to the work,
// character or model), the author, its type, the votes with the vote toggle
// when voting is open, and its place when it won.
import { useState } from 'react';
import type { ReactNode } from 'react';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { requireLogin } from '../square/actions';
import { Avatar } from '../square/WorkCard';
import { profilePath } from '../square/route';
import { useAtomValue } from '../state/jotai';
import { useErrorText } from '../tavern/useErrorText';
import { activitiesApi } from './actions';
import { entryPath } from './model';
import { TYPE_KEYS } from './parts';
import type { Entry, VoteAnswer } from './types';

export function EntryTile({ entry, votable, showVotes, onVoted, extra }: { entry: Entry; votable: boolean; showVotes: boolean; onVoted?: (answer: VoteAnswer) => void; extra?: ReactNode }) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const errorText = useErrorText();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const href = localePath(locale, entryPath(entry));

  async function vote() {
    if (busy || !requireLogin()) return;
    setBusy(true);
    setError(null);
    try {
      onVoted?.(await activitiesApi.vote(entry.entry_id, !entry.voted));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <article className="act-entry" data-testid="activity-entry" data-entry={entry.entry_id} data-obj={entry.obj_id} data-status={entry.status}>
      <Link to={href} className="act-entry__cover" tabIndex={-1} aria-hidden="true">
        {entry.cover?.url ? <img src={entry.cover.url} alt="" loading="lazy" /> : <span className="act-tile__blank">{entry.title || t('square.card.untitled')}</span>}
        {entry.rank !== null && (
          <span className="act-entry__rank" data-testid="entry-rank">
            {t('activities.rank', { rank: entry.rank })}
          </span>
        )}
      </Link>
      <div className="act-entry__body">
        <Link to={href} className="act-entry__title">
          {entry.title || t('square.card.untitled')}
        </Link>
        <div className="act-entry__meta">
          <Link to={localePath(locale, profilePath(entry.author.id))} className="act-entry__author">
            <Avatar name={entry.author.name} url={entry.author.avatar ?? null} size={20} />
            <span>{entry.author.name}</span>
          </Link>
          <span className="act-chip">{t(TYPE_KEYS[entry.type])}</span>
        </div>
        {showVotes && (
          <div className="act-entry__votes">
            {votable ? (
              <button type="button" className={`button button--small${entry.voted ? ' button--primary' : ''}`} aria-pressed={entry.voted} disabled={busy} onClick={() => void vote()} data-testid="vote-button">
                {t(entry.voted ? 'activities.vote.cancel' : 'activities.vote')} · <span data-testid="vote-count">{entry.votes}</span>
              </button>
            ) : (
              <span className="muted" data-testid="vote-count">
                {t('activities.votes', { n: entry.votes })}
              </span>
            )}
          </div>
        )}
        {extra}
        {error !== null && (
          <p role="alert" className="tavern__error">
            {error}
          </p>
        )}
      </div>
    </article>
  );
}
