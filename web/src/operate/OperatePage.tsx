// `/operate` and `/operate/{tab}`: the operators' console for running the
// community (activities, check-in and awards, the home page, surveys,
// analytics). Tabs come from the registry in `tabs.ts`. Only operators see
// it; everyone else sees a refusal (the server refuses their calls anyway).
import { loggedInAtom } from '../account/atoms';
import { Link } from '../app/Link';
import { NotFoundPage } from '../app/NotFoundPage';
import type { MessageKey } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { useModerationRole } from '../moderation/actions';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { operatePath } from './route';
import { OPERATE_TABS } from './tabs';
import './operate.css';

export function OperatePage({ tab }: { tab: string }) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const loggedIn = useAtomValue(loggedInAtom);
  const role = useModerationRole();

  if (!loggedIn || (role !== null && role !== 'operator')) {
    return (
      <section className="hero" data-testid="operate-forbidden">
        <h1>{t('operate.title')}</h1>
        <p>{t('operate.forbidden')}</p>
      </section>
    );
  }
  if (role === null) return <p className="sq-note">{t('operate.loading')}</p>;
  const current = tab === '' ? OPERATE_TABS[0] : OPERATE_TABS.find((x) => x.id === tab);
  if (current === undefined) return OPERATE_TABS.length === 0 ? <p className="muted">{t('operate.empty')}</p> : <NotFoundPage />;
  const { Component } = current;
  return (
    <div className="operate-page" data-testid="operate-page" data-tab={current.id}>
      <h1>{t('operate.title')}</h1>
      <nav className="tabs operate-tabs" aria-label={t('operate.title')}>
        {OPERATE_TABS.map((x) => (
          <Link key={x.id} to={localePath(locale, operatePath(x.id))} className="tabs__tab" aria-current={x.id === current.id ? 'page' : undefined}>
            {t(x.title as MessageKey)}
          </Link>
        ))}
      </nav>
      <Component />
    </div>
  );
}
