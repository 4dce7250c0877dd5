import { useEffect } from 'react';
import { api } from '../app/services';
import { useT } from '../i18n/useT';
import { appStore, useAtomValue, useSetAtom } from '../state/jotai';
import { accountAtom, loginDialogAtom } from './atoms';
import { mailApi, mailConfigAtom } from './mailApi';

/** Reads the server's mail config once per page (null until it answers). */
export function useMailConfig() {
  const config = useAtomValue(mailConfigAtom);
  useEffect(() => {
    if (appStore.get(mailConfigAtom) !== null) return;
    mailApi
      .config(api)
      .then((c) => appStore.set(mailConfigAtom, c))
      .catch(() => appStore.set(mailConfigAtom, { enabled: false, code_ttl_secs: 0 }));
  }, []);
  return config;
}

/**
 * A banner under the header while the signed-in account's address is not
 * verified (and the server sends mail): "Verify now" opens the popup's
 * verify step.
 */
export function VerifyBanner() {
  const t = useT();
  const account = useAtomValue(accountAtom);
  const config = useMailConfig();
  const setDialog = useSetAtom(loginDialogAtom);
  if (!account || account.email_verified !== false || !config?.enabled) return null;
  return (
    <div className="banner banner--info" role="status" data-testid="verify-banner">
      <span>{t('mail.banner')}</span>{' '}
      <button
        type="button"
        className="button button--link"
        onClick={() => setDialog({ open: true, step: 'verify', email: account.email })}
      >
        {t('mail.bannerAction')}
      </button>
    </div>
  );
}
