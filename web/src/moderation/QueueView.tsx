// The moderators' queue: open reports grouped by object and open appeals,
// latest first, filtered by kind, paged; each entry with its actions.
import { useState } from 'react';
import { useT } from '../i18n/useT';
import { useErrorText } from '../tavern/useErrorText';
import { moderationApi } from './actions';
import { itemKey } from './model';
import { QueueItemCard } from './QueueItemCard';
import { usePagedList } from './usePagedList';

type Filter = 'all' | 'report' | 'appeal';

export function QueueView() {
  const t = useT();
  const errorText = useErrorText();
  const [filter, setFilter] = useState<Filter>('all');
  const list = usePagedList((cursor) => moderationApi.queue(filter === 'all' ? null : filter, cursor), itemKey, [filter]);

  return (
    <section className="mod-queue" data-testid="mod-queue">
      <div className="mod-toolbar">
        <div className="tabs mod-filter" role="group">
          {(['all', 'report', 'appeal'] as const).map((f) => (
            <button key={f} type="button" className="tabs__tab" aria-pressed={filter === f} onClick={() => setFilter(f)}>
              {t(`moderation.filter.${f}`)}
            </button>
          ))}
        </div>
        <button type="button" className="button" onClick={list.reload} disabled={list.loading}>
          {t('moderation.reload')}
        </button>
      </div>
      {list.error !== null && (
        <p className="sq-error" role="alert">
          {errorText(list.error)}{' '}
          <button type="button" className="button button--link" onClick={list.reload}>
            {t('moderation.retry')}
          </button>
        </p>
      )}
      {!list.loading && list.error === null && list.items.length === 0 && <p className="sq-note">{t('moderation.queue.empty')}</p>}
      <ul className="mod-list">
        {list.items.map((item) => (
          <QueueItemCard key={itemKey(item)} item={item} onChanged={list.replace} />
        ))}
      </ul>
      {list.loading && (
        <p className="sq-note" aria-live="polite">
          {t('moderation.loading')}
        </p>
      )}
      {list.hasMore && !list.loading && (
        <button type="button" className="button" onClick={list.more}>
          {t('moderation.more')}
        </button>
      )}
    </section>
  );
}
