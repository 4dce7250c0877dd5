import { useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { PersonaDialog } from './PersonaDialog';
import { tavernPath } from './route';
import type { TavernRoute } from './route';

const TABS = [
  { view: 'browse', key: 'tavern.browse' },
  { view: 'mine', key: 'tavern.mine' },
  { view: 'new', key: 'tavern.create' },
] as const;

/** The tavern's title and its sections. */
export function TavernNav({ current }: { current: TavernRoute['view'] }) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const loggedIn = useAtomValue(loggedInAtom);
  const [personaOpen, setPersonaOpen] = useState(false);
  return (
    <div className="tavern__head">
      <div>
        <h1 className="tavern__title">{t('tavern.title')}</h1>
        <p className="tavern__tagline">{t('tavern.tagline')}</p>
      </div>
      <div className="tavern__head-tools">
        <nav aria-label={t('tavern.sections')} className="tavern__tabs">
          {TABS.map((tab) => (
            <Link
              key={tab.view}
              to={localePath(locale, tavernPath({ view: tab.view }))}
              className={`tavern__tab${current === tab.view ? ' tavern__tab--on' : ''}${tab.view === 'new' ? ' tavern__tab--new' : ''}`}
              aria-current={current === tab.view ? 'page' : undefined}
            >
              {t(tab.key)}
            </Link>
          ))}
        </nav>
        {loggedIn && (
          <button type="button" className="button tavern__persona" aria-haspopup="dialog" onClick={() => setPersonaOpen(true)}>
            {t('tavern.persona.open')}
          </button>
        )}
      </div>
      {personaOpen && <PersonaDialog onClose={() => setPersonaOpen(false)} />}
    </div>
  );
}
