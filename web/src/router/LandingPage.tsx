import { useEffect } from 'react';
import { loginDialogAtom, tokenAtom } from '../account/atoms';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { appStore, useAtomValue, useSetAtom } from '../state/jotai';
import { localePath } from './locale';
import { localeAtom, navigate, useLandingRedirect } from './router';

/** `/{locale}/landing`: the page for new visitors; a logged-in visitor is sent home (spec 1 §2). */
export function LandingPage() {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const loggedIn = useAtomValue(tokenAtom) !== null;
  const redirect = useLandingRedirect(loggedIn);
  const setDialog = useSetAtom(loginDialogAtom);
  useEffect(() => {
    if (redirect !== null) navigate(appStore, redirect, { replace: true });
  }, [redirect]);
  if (redirect !== null) return null;
  return (
    <section className="hero">
      <h1>{t('landing.title')}</h1>
      <p className="hero__tagline">{t('landing.intro')}</p>
      <p>
        <button type="button" className="button button--primary" onClick={() => setDialog({ open: true, step: 'signup' })}>
          {t('landing.start')}
        </button>{' '}
        <Link to={localePath(locale, '/prompt-editor')}>{t('landing.editor')}</Link>
      </p>
    </section>
  );
}
