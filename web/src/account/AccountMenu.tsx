import { Link } from '../app/Link';
import { session } from '../app/services';
import { toastAtom } from '../app/toast';
import { useT } from '../i18n/useT';
import { OrnamentAvatar } from '../ornaments/OrnamentAvatar';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue, useSetAtom } from '../state/jotai';
import { accountAtom, loginDialogAtom, tokenAtom } from './atoms';

/** "Log in", or the account's name and "Log out". */
export function AccountMenu() {
  const token = useAtomValue(tokenAtom);
  const account = useAtomValue(accountAtom);
  const setDialog = useSetAtom(loginDialogAtom);
  const setToast = useSetAtom(toastAtom);
  const t = useT();
  const locale = useAtomValue(localeAtom);

  if (token === null) {
    return (
      <button type="button" className="button button--primary" onClick={() => setDialog({ open: true, step: 'login' })}>
        {t('header.logIn')}
      </button>
    );
  }
  const name = account?.name ?? t('header.account');
  return (
    <div className="account-menu">
      {/* The avatar and name open the account's settings (no extra button,
          so the header still fits a phone). */}
      <Link
        to={localePath(locale, '/settings')}
        className="account-menu__settings"
        data-testid="account-settings-link"
        aria-label={t('settings.title')}
        title={t('settings.title')}
      >
        {account?.ornament ? (
          <OrnamentAvatar name={name} ornament={account.ornament} size={32} />
        ) : (
          <span className="avatar" aria-hidden="true" title={name}>
            {name.trim().charAt(0).toUpperCase() || '?'}
          </span>
        )}
        <span className="account-menu__name" data-testid="account-name">
          {name}
        </span>
      </Link>
      <button type="button" className="button" onClick={() => {
          setToast(null);
          void session.logout();
        }}>
        {t('header.logOut')}
      </button>
    </div>
  );
}
