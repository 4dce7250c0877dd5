import { useEffect, useRef, useState } from 'react';
import { api } from '../app/services';
import { Link } from '../app/Link';
import { errorMessage, renderErrorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import { useMessages, useT } from '../i18n/useT';
import { navigate, useHomePath } from '../router/router';
import { appStore } from '../state/jotai';
import { announceLoginThird, linkProvider, loginThird, readCallback } from './oidc';
import { useApplyLogin } from './useLoginOutcome';

/**
 * Where a provider sends the browser back (`/oidc/callback?code&state`):
 * finishes the sign-in (a new account continues with the popup's final
 * step) or the link, then returns to where the attempt started.
 */
export function OidcCallbackPage() {
  const t = useT();
  const table = useMessages();
  const home = useHomePath();
  const applyLogin = useApplyLogin();
  const [error, setError] = useState<ErrorMessage | null>(null);
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
        } else {
          const data = await loginThird(api, code, pending);
          announceLoginThird(window, data);
          const refused = applyLogin(data);
          if (refused !== null) return refused;
        }
        navigate(appStore, back, { replace: true });
        return null;
      } catch (e) {
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
          <Link to={home}>{t('oidc.backHome')}</Link>
        </>
      )}
    </section>
  );
}
