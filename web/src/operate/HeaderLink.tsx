// The header's link to the operators' console, shown only to operators.
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { useModerationRole } from '../moderation/actions';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { OPERATE_PATH } from './route';

export function OperateHeaderLink() {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const role = useModerationRole();
  if (role !== 'operator') return null;
  return (
    <Link to={localePath(locale, OPERATE_PATH)} className="button button--link site-header__channels site-header__mod" data-testid="header-operate">
      <span className="site-header__channels-icon" aria-hidden="true">
        ⚙
      </span>
      <span className="site-header__channels-label">{t('operate.headerLink')}</span>
    </Link>
  );
}
