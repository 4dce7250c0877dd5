import { useCallback } from 'react';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { squareApi } from '../square/actions';
import { FollowButton } from '../square/FollowButton';
import { profilePath } from '../square/route';
import type { AccountCard } from '../square/types';
import { usePaged } from '../square/usePaged';
import { Avatar, shortCount } from '../square/WorkCard';
import { accountAtom } from '../account/atoms';
import { useAtomValue } from '../state/jotai';
import { useErrorText } from '../tavern/useErrorText';

/** A profile's followers or the accounts it follows, with follow buttons. */
export function AccountList({ accountId, list }: { accountId: string; list: 'followers' | 'following' }) {
  const t = useT();
  const errorText = useErrorText();
  const locale = useAtomValue(localeAtom);
  const me = useAtomValue(accountAtom)?.id ?? null;
  const load = useCallback((cursor: string | null) => squareApi.accounts(list, accountId, cursor), [list, accountId]);
  const { state, more, retry } = usePaged(load, (a: AccountCard) => a.id, [list, accountId]);
  return (
    <div className="account-list">
      <ul className="account-list__items" aria-label={t(`profile.tab.${list}`)}>
        {state.items.map((a) => (
          <li key={a.id} className="account-row" data-testid="account-row">
            <Link to={localePath(locale, profilePath(a.id))} className="account-row__link">
              <Avatar name={a.name} url={a.avatar} size={40} />
              <span className="account-row__name">{a.name}</span>
              <span className="muted">{t('profile.accountCounts', { works: shortCount(a.works), followers: shortCount(a.followers) })}</span>
            </Link>
            {a.id !== me && <FollowButton accountId={a.id} following={a.following} />}
          </li>
        ))}
      </ul>
      {state.error !== null && (
        <p className="sq-error" role="alert">
          {errorText(state.error)}{' '}
          <button type="button" className="button button--link" onClick={retry}>
            {t('square.retry')}
          </button>
        </p>
      )}
      {state.loading && <p className="sq-note">{t('square.loading')}</p>}
      {state.loaded && !state.loading && state.items.length === 0 && state.error === null && <p className="sq-note">{t(`profile.empty.${list}`)}</p>}
      {!state.loading && state.cursor !== null && (
        <button type="button" className="button" onClick={more}>
          {t('square.more')}
        </button>
      )}
    </div>
  );
}
