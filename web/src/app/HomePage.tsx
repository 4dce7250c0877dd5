import { accountAtom, loginDialogAtom, tokenAtom } from '../account/atoms';
import { useT } from '../i18n/useT';
import { RecentFrames } from '../socket/RecentFrames';
import { useAtomValue, useSetAtom } from '../state/jotai';

/** `/{locale}/`: a welcome and the live-events panel. */
export function HomePage() {
  const t = useT();
  const token = useAtomValue(tokenAtom);
  const account = useAtomValue(accountAtom);
  const setDialog = useSetAtom(loginDialogAtom);
  return (
    <>
      <section className="hero">
        <h1>{t('app.name')}</h1>
        <p className="hero__tagline">{t('app.tagline')}</p>
        {token !== null ? (
          <p>{t('home.welcome', { name: account?.name ?? '…' })}</p>
        ) : (
          <p>
            {t('home.visitor')}{' '}
            <button type="button" className="button button--link" onClick={() => setDialog({ open: true, step: 'signup' })}>
              {t('login.tabSignup')}
            </button>
          </p>
        )}
      </section>
      <RecentFrames />
    </>
  );
}
