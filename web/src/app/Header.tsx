import { AccountMenu } from '../account/AccountMenu';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { SocketBadge } from '../socket/SocketBadge';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { Link } from './Link';

export function Header() {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  return (
    <header className="site-header">
      <div className="site-header__inner">
        <Link to={localePath(locale, '/')} className="brand">
          <span className="brand__mark" aria-hidden="true" />
          <span className="brand__name">{t('app.name')}</span>
        </Link>
        <div className="site-header__end">
          <SocketBadge />
          <AccountMenu />
        </div>
      </div>
    </header>
  );
}
