// `/moderation`: the moderators' console. Tabs: the queue, account bans,
// and for operators the audit log, moderator grants and the text filter's lists. Visitors and plain
// users see a refusal (the server refuses every call of theirs anyway).
import type { ReactNode } from 'react';
import { loggedInAtom } from '../account/atoms';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { useModerationRole } from './actions';
import { AuditView } from './AuditView';
import { BansView } from './BansView';
import { FilterView } from './FilterView';
import { ModeratorsView } from './ModeratorsView';
import { QueueView } from './QueueView';
import type { ModerationTab } from './route';
import { moderationPath } from './route';
import './moderation.css';

const OPERATOR_TABS: ReadonlySet<ModerationTab> = new Set(['audit', 'moderators', 'filter']);

export function ModerationPage({ tab }: { tab: ModerationTab }) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const loggedIn = useAtomValue(loggedInAtom);
  const role = useModerationRole();

  if (!loggedIn || role === 'user') {
    return (
      <section className="hero" data-testid="mod-forbidden">
        <h1>{t('moderation.title')}</h1>
        <p>{t('moderation.forbidden')}</p>
      </section>
    );
  }
  if (role === null) return <p className="sq-note">{t('moderation.loading')}</p>;

  const tabs: ModerationTab[] = role === 'operator' ? ['queue', 'bans', 'audit', 'moderators', 'filter'] : ['queue', 'bans'];
  let body: ReactNode;
  if (OPERATOR_TABS.has(tab) && role !== 'operator') {
    const only = tab === 'audit' ? 'moderation.audit.operatorsOnly' : tab === 'filter' ? 'moderation.filter.operatorsOnly' : 'moderation.mods.operatorsOnly';
    body = <p className="sq-note">{t(only)}</p>;
  } else {
    switch (tab) {
      case 'queue':
        body = <QueueView />;
        break;
      case 'bans':
        body = <BansView />;
        break;
      case 'audit':
        body = <AuditView />;
        break;
      case 'moderators':
        body = <ModeratorsView />;
        break;
      case 'filter':
        body = <FilterView />;
        break;
    }
  }
  return (
    <div className="mod-page" data-testid="moderation-page" data-role={role}>
      <header className="mod-page__head">
        <h1>{t('moderation.title')}</h1>
        <p className="muted">{t('moderation.roleLine', { role: t(`moderation.role.${role}`) })}</p>
      </header>
      <nav className="tabs mod-tabs" aria-label={t('moderation.title')}>
        {tabs.map((x) => (
          <Link key={x} to={localePath(locale, moderationPath(x))} className="tabs__tab" aria-current={x === tab ? 'page' : undefined}>
            {t(`moderation.tab.${x}`)}
          </Link>
        ))}
      </nav>
      {body}
    </div>
  );
}
