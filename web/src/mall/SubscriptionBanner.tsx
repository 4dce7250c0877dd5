// The subscription banner (spec 1 §4): for a logged-in user whose payment info says not
// paid, once 24 h have passed since it was last shown (localStorage); dismissible.
import { useEffect } from 'react';
import { tokenAtom } from '../account/atoms';
import { paymentInfoAtom } from '../generator/atoms';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, navigate } from '../router/router';
import { appStore, useAtom, useAtomValue } from '../state/jotai';
import { bannerShownAtom } from './atoms';
import { bannerDue, readBannerAt, writeBannerAt } from './rules';

/** True once payment info for this token is known and names no plan. */
export function useKnownFree(): boolean {
  const token = useAtomValue(tokenAtom);
  const payment = useAtomValue(paymentInfoAtom);
  return token !== null && payment !== null && payment.token === token && !payment.info.activeState && !payment.info.liteActiveState;
}

export function SubscriptionBanner() {
  const t = useT();
  const free = useKnownFree();
  const locale = useAtomValue(localeAtom);
  const [shown, setShown] = useAtom(bannerShownAtom);
  useEffect(() => {
    if (!free) {
      setShown(false);
      return;
    }
    const now = Date.now();
    if (bannerDue(now, readBannerAt())) {
      writeBannerAt(now);
      setShown(true);
    }
  }, [free, setShown]);
  if (!shown || !free) return null;
  return (
    <aside className="mall-banner" data-testid="subscription-banner" aria-label={t('mall.badge.label')}>
      <span>{t('mall.banner.text')}</span>
      <button
        type="button"
        className="button button--primary"
        onClick={() => {
          setShown(false);
          navigate(appStore, localePath(locale, '/mall'));
        }}
      >
        {t('mall.banner.cta')}
      </button>
      <button type="button" className="icon-button" aria-label={t('mall.banner.dismiss')} onClick={() => setShown(false)}>
        ×
      </button>
    </aside>
  );
}
