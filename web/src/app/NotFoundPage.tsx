import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { Link } from './Link';

export function NotFoundPage() {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  return (
    <section className="hero">
      <h1>{t('notFound.title')}</h1>
      <p>
        <Link to={localePath(locale, '/')}>{t('notFound.home')}</Link>
      </p>
    </section>
  );
}
