// The header's way into the mall: the credits (to the mall) and the VIP badge (the VIP
// pop-up), for a logged-in user.
import { loggedInAtom } from '../account/atoms';
import { Link } from '../app/Link';
import { paymentInfoAtom, roleAtom } from '../generator/atoms';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue, useSetAtom } from '../state/jotai';
import { creditsAtom } from '../tasks/atoms';
import { vipPopupAtom } from './atoms';
import { mallPath } from './route';
import './mall.css';

export function HeaderEntry() {
  const t = useT();
  const loggedIn = useAtomValue(loggedInAtom);
  const locale = useAtomValue(localeAtom);
  const credits = useAtomValue(creditsAtom);
  const role = useAtomValue(roleAtom);
  const payment = useAtomValue(paymentInfoAtom);
  const openVip = useSetAtom(vipPopupAtom);
  if (!loggedIn) return null;
  const member = role === 'paid';
  const lite = member && payment !== null && !payment.info.activeState && payment.info.liteActiveState;
  return (
    <span className="mall-entry">
      {credits !== null && (
        <Link to={localePath(locale, mallPath('mall'))} className="button button--link mall-entry__credits" data-testid="header-credits">
          {t('mall.badge.credits', { n: credits.available })}
        </Link>
      )}
      <button
        type="button"
        className={member ? 'mall-badge mall-badge--vip' : 'mall-badge'}
        data-testid="vip-badge"
        data-vip={member}
        onClick={() => openVip({ open: true, reason: 'badge' })}
      >
        {member ? (lite ? t('mall.badge.lite') : t('mall.badge.vip')) : t('mall.badge.get')}
      </button>
    </span>
  );
}
