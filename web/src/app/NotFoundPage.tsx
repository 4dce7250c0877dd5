import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { historyTrailAtom, localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { Link } from './Link';

/** Any path the route table does not know: a way home, and back when the app has history. */
export function NotFoundPage() {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const canGoBack = useAtomValue(historyTrailAtom).index > 0;
  return (
    <section className="hero">
      <h1>{t('notFound.title')}</h1>
      <p>
        <Link to={localePath(locale, '/')}>{t('notFound.home')}</Link>
        {canGoBack && (
          <>
            {' · '}
            <button type="button" className="button button--link" onClick={() => window.history.back()}>
              {t('notFound.back')}
            </button>
          </>
        )}
      </p>
    </section>
  );
}
