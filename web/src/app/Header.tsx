import { AccountMenu } from '../account/AccountMenu';
import { CheckinEntry } from '../checkin/CheckinEntry';
import { loggedInAtom } from '../account/atoms';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { Bell } from '../notifications/Bell';
import { HeaderEntry } from '../mall/HeaderEntry';
import { ModerationHeaderLink } from '../moderation/HeaderLink';
import { OperateHeaderLink } from '../operate/HeaderLink';
import { SearchBox } from '../search/SearchBox';
import '../search/search.css';
import { SocketBadge } from '../socket/SocketBadge';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { Link } from './Link';

export function Header() {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const loggedIn = useAtomValue(loggedInAtom);
  return (
    <header className="site-header">
      <div className="site-header__inner">
        <Link to={localePath(locale, '/')} className="brand">
          <span className="brand__mark" aria-hidden="true" />
          <span className="brand__name">{t('app.name')}</span>
        </Link>
        <SearchBox className="site-header__search" />
        <Link to={localePath(locale, '/search')} className="icon-button site-header__search-link" aria-label={t('search.label')}>
          <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
            <path d="M10.5 3a7.5 7.5 0 0 1 5.9 12.1l4.3 4.3-1.4 1.4-4.3-4.3A7.5 7.5 0 1 1 10.5 3Zm0 2a5.5 5.5 0 1 0 0 11 5.5 5.5 0 0 0 0-11Z" fill="currentColor" />
          </svg>
        </Link>
        <div className="site-header__end">
          <Link to={localePath(locale, '/tavern')} className="button button--link site-header__channels">
            <span className="site-header__channels-icon" aria-hidden="true">
              ✦
            </span>
            <span className="site-header__channels-label">{t('tavern.nav')}</span>
          </Link>
          <Link to={localePath(locale, '/models')} className="button button--link site-header__channels" data-testid="header-models">
            <span className="site-header__channels-icon" aria-hidden="true">
              ◈
            </span>
            <span className="site-header__channels-label">{t('models.nav')}</span>
          </Link>
          <Link to={localePath(locale, '/activities')} className="button button--link site-header__channels" data-testid="header-activities">
            <span className="site-header__channels-icon" aria-hidden="true">
              ★
            </span>
            <span className="site-header__channels-label">{t('activities.nav')}</span>
          </Link>
          <Link to={localePath(locale, '/agent')} className="button button--link site-header__channels">
            <span className="site-header__channels-icon" aria-hidden="true">
              ✎
            </span>
            <span className="site-header__channels-label">{t('agent.nav')}</span>
          </Link>
          {loggedIn && (
            <Link to={localePath(locale, '/channels')} className="button button--link site-header__channels">
              <span className="site-header__channels-icon" aria-hidden="true">
                #
              </span>
              <span className="site-header__channels-label">{t('channels.nav')}</span>
            </Link>
          )}
          {loggedIn && <ModerationHeaderLink />}
          {loggedIn && <OperateHeaderLink />}
          <CheckinEntry />
          <HeaderEntry />
          <Bell />
          <SocketBadge />
          <AccountMenu />
        </div>
      </div>
    </header>
  );
}
