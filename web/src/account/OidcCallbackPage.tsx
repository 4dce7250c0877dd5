import { useEffect, useRef, useState } from 'react';
import { api } from '../app/services';
import { Link } from '../app/Link';
import { errorMessage, renderErrorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import { useMessages, useT } from '../i18n/useT';
import { navigate, useHomePath } from '../router/router';
import { appStore } from '../state/jotai';
import { pendingDeletionAt } from './CancelDeletionOffer';
import { accountAtom, tokenAtom } from './atoms';
import { announceLoginThird, cancelDeletionThird, linkProvider, loginThird, readCallback, requestDeletionThird, startOidc } from './oidc';
import type { PendingOidc } from './oidc';
import { useApplyLogin } from './useLoginOutcome';
import { scheduledDeletionAtom } from '../settings/deletionState';
import type { DeletionMethods, DeletionView } from '../settings/deletionState';

/**
 * Where a provider sends the browser back (`/oidc/callback?code&state`):
 * finishes the sign-in (a new account continues with the popup's final
 * step), the link, the cancel of a scheduled deletion, or the deletion
 * request a fresh sign-in proved (the request ends every session, so the
 * settings page then shows the scheduled deletion signed out), then returns to
 * where the attempt started. A sign-in refused because the account waits
 * for its deletion (20010) offers to cancel it by signing in once more
 * (the provider's code is single-use).
 */
export function OidcCallbackPage() {
  const t = useT();
  const table = useMessages();
  const home = useHomePath();
  const applyLogin = useApplyLogin();
  const [error, setError] = useState<ErrorMessage | null>(null);
  const [waiting, setWaiting] = useState<{ at: number; pending: PendingOidc } | null>(null);
  const ran = useRef(false);

  useEffect(() => {
    // The code is single-use: never send it twice (StrictMode runs effects twice).
    if (ran.current) return;
    ran.current = true;
    void finish().then(setError);

    async function finish(): Promise<ErrorMessage | null> {
      const read = readCallback(window.location.search, window.sessionStorage);
      if (!read.ok) return { key: read.message };
      const { code, pending } = read;
      const back = pending.back.startsWith('/') && !pending.back.startsWith('//') ? pending.back : home;
      try {
        if (pending.purpose === 'link') {
          await linkProvider(api, code, pending);
        } else if (pending.purpose === 'delete') {
          const methods = await api.post<DeletionMethods>('/api/v1/account/delete/methods', {});
          const view = await requestDeletionThird<DeletionView>(api, code, pending);
          appStore.set(scheduledDeletionAtom, { ...view, methods });
          appStore.set(tokenAtom, null);
          appStore.set(accountAtom, null);
        } else if (pending.purpose === 'cancel') {
          const refused = applyLogin(await cancelDeletionThird(api, code, pending));
          if (refused !== null) return refused;
        } else {
          const data = await loginThird(api, code, pending);
          announceLoginThird(window, data);
          const refused = applyLogin(data);
          if (refused !== null) return refused;
        }
        navigate(appStore, back, { replace: true });
        return null;
      } catch (e) {
        const at = pending.purpose === 'login' ? pendingDeletionAt(e) : null;
        if (at !== null) setWaiting({ at, pending: { ...pending, back } });
        return errorMessage(e);
      }
    }
  }, [applyLogin, home]);

  return (
    <section className="page page--narrow" aria-live="polite" data-testid="oidc-callback">
      {error === null ? (
        <h1>{t('oidc.callbackTitle')}</h1>
      ) : (
        <>
          <h1>{t('oidc.callbackFailed')}</h1>
          <p className="form-error" role="alert" data-testid="oidc-error">
            {renderErrorMessage(table, error)}
          </p>
          {waiting !== null && (
            <div className="form__notice" data-testid="cancel-deletion-offer">
              <p>{t('deletion.loginScheduled', { date: new Date(waiting.at).toLocaleString() })}</p>
              <button
                type="button"
                className="button"
                onClick={() =>
                  void startOidc(api, window.sessionStorage, waiting.pending.provider, 'cancel', waiting.pending.back)
                    .then((url) => window.location.assign(url))
                    .catch((e: unknown) => setError(errorMessage(e)))
                }
              >
                {t('deletion.cancelAndSignIn')}
              </button>
            </div>
          )}
          <Link to={home}>{t('oidc.backHome')}</Link>
        </>
      )}
    </section>
  );
}
