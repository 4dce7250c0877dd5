import type { KeyboardEvent } from 'react';
import { loginDialogAtom } from '../account/atoms';
import { useT } from '../i18n/useT';
import { useAtom, useAtomValue, useSetAtom } from '../state/jotai';
import { activeTabAtom, problemAtom, roleAtom } from './atoms';
import { canOpenTab } from './roles';
import { TABS } from './tabs';
import type { TabId } from './tabs';
import { tabLabelKey } from './texts';

/**
 * The twelve menu tabs (spec 1 §2). A visitor has only the starter tab; the
 * others are shown locked and open the login popup (spec 1 §6).
 */
export function TabMenu({ panelId }: { panelId: string }) {
  const t = useT();
  const role = useAtomValue(roleAtom);
  const [active, setActive] = useAtom(activeTabAtom);
  const setLogin = useSetAtom(loginDialogAtom);
  const setProblem = useSetAtom(problemAtom);

  function choose(tab: TabId) {
    if (!canOpenTab(role, tab)) {
      setLogin({ open: true, step: 'login' });
      return;
    }
    setProblem(null);
    setActive(tab);
  }

  function onKeyDown(e: KeyboardEvent<HTMLDivElement>) {
    if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft' && e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const buttons = Array.from(e.currentTarget.querySelectorAll<HTMLButtonElement>('[role="tab"]'));
    const i = buttons.findIndex((b) => b === document.activeElement);
    if (i < 0) return;
    e.preventDefault();
    const step = e.key === 'ArrowRight' || e.key === 'ArrowDown' ? 1 : -1;
    buttons[(i + step + buttons.length) % buttons.length]?.focus();
  }

  return (
    <div className="gen-tabs" role="tablist" aria-label={t('gen.menu')} aria-orientation="vertical" onKeyDown={onKeyDown}>
      {TABS.map((tab) => {
        const locked = !canOpenTab(role, tab);
        const selected = tab === active;
        return (
          <button
            key={tab}
            type="button"
            role="tab"
            id={`gen-tab-${tab}`}
            aria-selected={selected}
            aria-controls={panelId}
            tabIndex={selected ? 0 : -1}
            className={`gen-tabs__tab${locked ? ' gen-tabs__tab--locked' : ''}`}
            data-tab={tab}
            title={locked ? t('gen.lockedTip') : undefined}
            onClick={() => choose(tab)}
          >
            <span>{t(tabLabelKey(tab))}</span>
            {locked && (
              <svg className="gen-tabs__lock" viewBox="0 0 16 16" width="12" height="12" role="img" aria-label={t('gen.locked')}>
                <path
                  fill="currentColor"
                  d="M4 7V5a4 4 0 1 1 8 0v2h.5A1.5 1.5 0 0 1 14 8.5v5a1.5 1.5 0 0 1-1.5 1.5h-9A1.5 1.5 0 0 1 2 13.5v-5A1.5 1.5 0 0 1 3.5 7H4Zm2 0h4V5a2 2 0 1 0-4 0v2Z"
                />
              </svg>
            )}
          </button>
        );
      })}
    </div>
  );
}
