import { useCallback, useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import { isApiError } from '../api/client';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { squareApi } from '../square/actions';
import { followsAtom } from '../square/atoms';
import { FeedGrid } from '../square/FeedGrid';
import { FollowButton } from '../square/FollowButton';
import { profilePath, PROFILE_TABS } from '../square/route';
import type { ProfileTab } from '../square/route';
import type { Profile } from '../square/types';
import { shortCount } from '../square/WorkCard';
import { OrnamentAvatar } from '../ornaments/OrnamentAvatar';
import { useWornOf } from '../ornaments/useWornOf';
import { useAtomValue } from '../state/jotai';
import { useErrorText } from '../tavern/useErrorText';
import { useLoaded } from '../tavern/useLoaded';
import { ProfileLinks } from './ProfileLinks';
import { ArticleDialog } from '../works/ArticleDialog';
import { AccountList } from './AccountList';
import { EditProfileDialog } from './EditProfileDialog';
import '../square/square.css';
import './profile.css';

/** `/user/{id}[/{tab}]`: a profile with its works, likes, collections (own only), followers and following. */
export function ProfilePage({ id, tab }: { id: string; tab: ProfileTab }) {
  const t = useT();
  const errorText = useErrorText();
  const loggedIn = useAtomValue(loggedInAtom);
  const profile = useLoaded(() => squareApi.profile(id), [id, loggedIn], null as Profile | null);

  if (profile.failed) {
    const missing = isApiError(profile.error) && (profile.error.code === 40400 || profile.error.key === 'NotFound');
    return missing ? (
      <section className="hero" data-testid="profile-missing">
        <h1>{t('profile.missing')}</h1>
      </section>
    ) : (
      <p className="sq-note sq-error" role="alert">
        {errorText(profile.error)}{' '}
        <button type="button" className="button button--link" onClick={profile.reload}>
          {t('square.retry')}
        </button>
      </p>
    );
  }
  if (profile.value === null || profile.value.id !== id) return <p className="sq-note">{t('square.loading')}</p>;
  return <ProfileView profile={profile.value} tab={tab} onChanged={(p) => profile.setValue(p)} />;
}

function ProfileView({ profile, tab, onChanged }: { profile: Profile; tab: ProfileTab; onChanged: (p: Profile) => void }) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const follow = useAtomValue(followsAtom)[profile.id];
  const [editing, setEditing] = useState(false);
  const [writing, setWriting] = useState(false);
  const followers = follow?.followers ?? profile.followers;
  const tabs = PROFILE_TABS.filter((x) => x !== 'collections' || profile.me);
  const shownTab: ProfileTab = tabs.includes(tab) ? tab : 'works';
  const ornament = useWornOf([profile.id])[profile.id];
  return (
    <div className="profile" data-testid="profile" data-id={profile.id}>
      <header className="profile__head">
        <OrnamentAvatar name={profile.name} url={profile.avatar} ornament={ornament} size={88} />
        <div className="profile__info">
          <h1 className="profile__name">{profile.name}</h1>
          {profile.bio !== '' && <p className="profile__bio">{profile.bio}</p>}
          <ProfileLinks links={profile.links ?? []} />
          <ul className="profile__counts">
            <li>
              <strong>{shortCount(profile.works)}</strong> {t('profile.count.works')}
            </li>
            <li>
              <strong data-testid="followers-count">{shortCount(followers)}</strong> {t('profile.count.followers')}
            </li>
            <li>
              <strong>{shortCount(profile.following)}</strong> {t('profile.count.following')}
            </li>
            <li>
              <strong>{shortCount(profile.likes_received)}</strong> {t('profile.count.likes')}
            </li>
          </ul>
        </div>
        <div className="profile__ops">
          {profile.me ? (
            <>
              <button type="button" className="button" onClick={() => setEditing(true)}>
                {t('profile.edit')}
              </button>
              <button type="button" className="button button--primary" onClick={() => setWriting(true)}>
                {t('works.article.write')}
              </button>
            </>
          ) : (
            <FollowButton accountId={profile.id} following={profile.followed} />
          )}
        </div>
      </header>
      <nav className="tabs profile__tabs" aria-label={t('profile.tabs')}>
        {tabs.map((x) => (
          <Link key={x} to={localePath(locale, profilePath(profile.id, x))} className="tabs__tab" aria-current={x === shownTab ? 'page' : undefined} aria-selected={x === shownTab}>
            {t(`profile.tab.${x}`)}
          </Link>
        ))}
      </nav>
      <ProfileTabView profile={profile} tab={shownTab} />
      {writing && <ArticleDialog onClose={() => setWriting(false)} />}
      {editing && (
        <EditProfileDialog
          profile={profile}
          onClose={() => setEditing(false)}
          onSaved={(p) => {
            setEditing(false);
            onChanged(p);
          }}
        />
      )}
    </div>
  );
}

function ProfileTabView({ profile, tab }: { profile: Profile; tab: ProfileTab }) {
  const t = useT();
  const id = profile.id;
  const me = profile.me;
  const load = useCallback(
    (cursor: string | null) => {
      const c = cursor === null ? {} : { cursor };
      if (tab === 'likes') return squareApi.feed('profileLikes', { account_id: id, ...c });
      if (tab === 'collections') return squareApi.feed('collections', c);
      return me ? squareApi.feed('myWorks', c) : squareApi.feed('profileWorks', { account_id: id, ...c });
    },
    [tab, id, me],
  );
  if (tab === 'followers' || tab === 'following') return <AccountList accountId={id} list={tab} />;
  return <FeedGrid load={load} deps={[tab, id, me]} label={t(`profile.tab.${tab}`)} emptyText={t(`profile.empty.${tab}`)} />;
}
