// The header's link to the moderators' console, shown only to moderators
// and operators (the role from `moderation/me`).
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { useModerationRole } from './actions';
import { MODERATION_PATH } from './route';
import './moderation.css';

export function ModerationHeaderLink() {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const role = useModerationRole();
  if (role !== 'moderator' && role !== 'operator') return null;
  return (
    <Link to={localePath(locale, MODERATION_PATH)} className="button button--link site-header__channels site-header__mod" data-testid="header-moderation">
      <span className="site-header__channels-icon" aria-hidden="true">
        ⚑
      </span>
      <span className="site-header__channels-label">{t('moderation.nav')}</span>
    </Link>
  );
}
