import { useId } from 'react';
import { HomeSlot } from '../home/HomeSlot';
import { useT } from '../i18n/useT';
import { TaskPanel } from '../tasks';
import { ControlNetPopup } from './ControlNetPopup';
import { GenerateBar } from './GenerateBar';
import { LoraLimitDialog } from './LoraLimitDialog';
import { TabFields } from './TabFields';
import { TabMenu } from './TabMenu';
import { tabHintKey, tabLabelKey } from './texts';
import { useWorkspace } from './useWorkspace';

/** The image workspace: menu, the active tab's form, and beside it the `generator-side` slot and the live task list. */
export function Workspace() {
  const t = useT();
  const panelId = useId();
  const { catalogue, studio, tab, role } = useWorkspace();
  return (
    // The prompt editor and its dictionary pad need the full width: the task list goes below.
    <div className={tab === 'promptStudio' ? 'gen gen--wide' : 'gen'}>
      <div className="gen__main">
        <header className="gen__header">
          <h1>{studio ? t('gen.titleStudio') : t('gen.title')}</h1>
          <p className="gen__note" data-testid="engine-note">
            {catalogue.engine_note}
          </p>
        </header>
        <TabMenu panelId={panelId} />
        {role === 'visitor' && <p className="gen__visitor muted">{t('gen.visitorTabs')}</p>}
        <form
          id={panelId}
          className="gen-form panel"
          role="tabpanel"
          aria-labelledby={`gen-tab-${tab}`}
          data-tab={tab}
          noValidate
          onSubmit={(e) => e.preventDefault()}
        >
          <h2 className="gen-form__title">{t(tabLabelKey(tab))}</h2>
          <p className="muted gen-small gen-form__hint">{t(tabHintKey(tab))}</p>
          <TabFields />
          <GenerateBar />
        </form>
      </div>
      <aside className="gen__tasks" aria-label={t('gen.tasks')}>
        <HomeSlot name="generator-side" />
        <TaskPanel />
      </aside>
      <ControlNetPopup />
      <LoraLimitDialog />
    </div>
  );
}
