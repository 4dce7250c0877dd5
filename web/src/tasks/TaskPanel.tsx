import { useEffect, useId } from 'react';
import { accountAtom, loggedInAtom } from '../account/atoms';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { creditsAtom, taskFilterAtom, tasksAtom, tasksErrorAtom, tasksLoadingAtom } from './atoms';
import { ErrorLine } from './ErrorLine';
import { filterChanged, isOwnTask, NO_FILTER } from './model';
import { taskSync } from './service';
import { TaskCard } from './TaskCard';
import { TaskFilters } from './TaskFilters';
import './tasks.css';

/** The live task list: every task of the account, newest first, kept live. */
export function TaskPanel() {
  const t = useT();
  const titleId = useId();
  const loggedIn = useAtomValue(loggedInAtom);
  const list = useAtomValue(tasksAtom);
  const me = useAtomValue(accountAtom)?.id ?? null;
  // Other members' channel tasks are pushed here too (the channel view shows
  // them); the panel lists only the user's own.
  const order = list.order.filter((id) => isOwnTask(list.byId[id], me));
  const loading = useAtomValue(tasksLoadingAtom);
  const error = useAtomValue(tasksErrorAtom);
  const filtered = filterChanged(NO_FILTER, useAtomValue(taskFilterAtom));

  useEffect(() => taskSync.start(), []);

  return (
    <section className="task-panel" aria-labelledby={titleId} data-testid="task-panel">
      <header className="task-panel__header">
        <h2 id={titleId}>{t('tasks.title')}</h2>
        <Credits />
      </header>
      {loggedIn && <TaskFilters />}
      <ErrorLine text={error} />
      {order.length > 0 ? (
        <ol className="task-list" aria-busy={loading}>
          {order.map((id) => (
            <TaskCard key={id} id={id} />
          ))}
        </ol>
      ) : (
        <p className="muted task-panel__empty">
          {!loggedIn
            ? t('tasks.loggedOut')
            : loading && !list.loaded
              ? t('tasks.loading')
              : filtered
                ? t('tasks.emptyFiltered')
                : t('tasks.empty')}
        </p>
      )}
      {loggedIn && list.cursor !== null && (
        <button type="button" className="button task-panel__more" disabled={loading} onClick={() => void taskSync.loadMore()}>
          {t('tasks.loadMore')}
        </button>
      )}
    </section>
  );
}

/** The balance in the panel header. */
function Credits() {
  const t = useT();
  const credits = useAtomValue(creditsAtom);
  if (credits === null) return null;
  return (
    <p className="task-credits" data-testid="task-credits">
      <span>{t('tasks.credits', { available: credits.available })}</span>
      {credits.held > 0 && <span className="muted"> · {t('tasks.creditsHeld', { held: credits.held })}</span>}
    </p>
  );
}
