// `/settings` and `/settings/{tab}`: the account's settings, in tabs
// (profile | security | notifications | account). The sections come from
// the registry in `sections.ts`; each section loads and saves on its own.
import { loggedInAtom, loginDialogAtom } from '../account/atoms';
import { Link } from '../app/Link';
import type { MessageKey } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue, useSetAtom } from '../state/jotai';
import type { SettingsTab } from './route';
import { SETTINGS_TABS, settingsPath } from './route';
import { SECTIONS } from './sections';
import { scheduledDeletionAtom } from './deletionState';
import { ScheduledDeletion } from './ScheduledDeletion';
import './settings.css';

export function SettingsPage({ tab }: { tab: SettingsTab }) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const loggedIn = useAtomValue(loggedInAtom);
  const openLogin = useSetAtom(loginDialogAtom);
  const scheduledDeletion = useAtomValue(scheduledDeletionAtom);

  if (!loggedIn && scheduledDeletion !== null) {
    // Asking for deletion signed this browser out: the date and the cancel form stay.
    return (
      <div className="settings-page" data-testid="settings-page" data-tab={tab}>
        <h1>{t('settings.title')}</h1>
        <ScheduledDeletion />
      </div>
    );
  }
  if (!loggedIn) {
    return (
      <section className="hero" data-testid="settings-login">
        <h1>{t('settings.title')}</h1>
        <p>{t('settings.needLogin')}</p>
        <button type="button" className="button button--primary" onClick={() => openLogin({ open: true, step: 'login' })}>
          {t('header.logIn')}
        </button>
      </section>
    );
  }
  const sections = SECTIONS.filter((s) => s.tab === tab);
  return (
    <div className="settings-page" data-testid="settings-page" data-tab={tab}>
      <h1>{t('settings.title')}</h1>
      <nav className="tabs settings-tabs" aria-label={t('settings.title')}>
        {SETTINGS_TABS.map((x) => (
          <Link key={x} to={localePath(locale, settingsPath(x))} className="tabs__tab" aria-current={x === tab ? 'page' : undefined}>
            {t(`settings.tab.${x}`)}
          </Link>
        ))}
      </nav>
      {sections.length === 0 && <p className="muted">{t('settings.empty')}</p>}
      {sections.map(({ id, title, Component }) => (
        <section key={id} className="settings-section" data-testid={`settings-${id}`} aria-labelledby={`settings-${id}-title`}>
          <h2 id={`settings-${id}-title`}>{t(title as MessageKey)}</h2>
          <Component />
        </section>
      ))}
    </div>
  );
}
