// Small pieces the model pages share: the error line (the server's key
// translated, else its message), a copy button, the families of the
// built-in catalogue (base model choices), and the pages' tab bar.
import { useEffect, useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import { Link } from '../app/Link';
import { api } from '../app/services';
import type { Family } from '../generator/catalogue';
import type { Catalogue } from '../generator/catalogue';
import { useT } from '../i18n/useT';
import type { Translate } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { errorText } from '../timbre/errors';
import { modelsPath } from './route';
import type { ModelsRoute } from './route';

export { errorText };

/** A failure as shown: `data-key` carries the server's key for tests and styling. */
export function ErrorLine({ error, testId = 'models-error' }: { error: unknown; testId?: string }) {
  const t = useT();
  if (error === null || error === undefined) return null;
  const key = typeof error === 'object' && error !== null && 'key' in error && typeof (error as { key: unknown }).key === 'string' ? (error as { key: string }).key : undefined;
  return (
    <p className="form-error" role="alert" data-testid={testId} data-key={key}>
      {errorText(t, error)}
    </p>
  );
}

export function CopyButton({ text, label, testId }: { text: string; label: string; testId?: string }) {
  const t = useT();
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="button button--small models-copy"
      aria-label={`${t('models.copy')}: ${label}`}
      data-testid={testId}
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        );
      }}
    >
      {copied ? t('models.copied') : t('models.copy')}
    </button>
  );
}

let familiesLoad: Promise<Family[]> | null = null;

/** The catalogue's families (the base models a shared model may have), loaded once. */
export function useFamilies(): Family[] {
  const [families, setFamilies] = useState<Family[]>([]);
  useEffect(() => {
    let live = true;
    familiesLoad ??= api.post<Catalogue>('/api/v1/task/v2/config/model').then(
      (c) => c.families,
      () => {
        familiesLoad = null;
        return [];
      },
    );
    void familiesLoad.then((f) => live && setFamilies(f));
    return () => {
      live = false;
    };
  }, []);
  return families;
}

/** A family's name for an id (the id itself when unknown). */
export function familyName(families: readonly Family[], id: string): string {
  return families.find((f) => f.id === id)?.name ?? id;
}

export function useModelsHref(): (r: ModelsRoute, query?: string) => string {
  const locale = useAtomValue(localeAtom);
  return (r, query = '') => localePath(locale, modelsPath(r)) + query;
}

const TABS = [
  { view: 'feed', key: 'models.nav.feed', login: false },
  { view: 'leaderboards', key: 'models.nav.leaderboards', login: false },
  { view: 'my', key: 'models.nav.my', login: true },
  { view: 'new', key: 'models.nav.new', login: true },
  { view: 'datasets', key: 'models.nav.datasets', login: true },
  { view: 'train', key: 'models.nav.train', login: true },
] as const;

export function ModelsNav({ view }: { view: ModelsRoute['view'] }) {
  const t = useT();
  const href = useModelsHref();
  const loggedIn = useAtomValue(loggedInAtom);
  return (
    <nav className="models-nav" aria-label={t('models.title')}>
      {TABS.filter((tab) => loggedIn || !tab.login).map((tab) => (
        <Link key={tab.view} to={href({ view: tab.view })} className={view === tab.view ? 'button button--primary' : 'button'} aria-current={view === tab.view ? 'page' : undefined} data-testid={`models-nav-${tab.view}`}>
          {t(tab.key)}
        </Link>
      ))}
    </nav>
  );
}

/** Credits as shown (`12 credits`). */
export function credits(t: Translate, n: number): string {
  return t('models.credits', { n });
}
