import { useEffect, useId, useState } from 'react';
import { useT } from '../i18n/useT';
import { dayRange, FILTER_DEBOUNCE_MS } from './model';
import { taskSync } from './service';

/** Time range and keyword filters; the keyword applies 1000 ms after typing stops. */
export function TaskFilters() {
  const t = useT();
  const id = useId();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [keyword, setKeyword] = useState('');

  // Dates apply at once (applyDates), the keyword after the debounce; the
  // sync refetches only when the resulting filter differs from the applied one.
  useEffect(() => {
    const timer = setTimeout(() => taskSync.setFilter({ ...dayRange(from, to), keyword }), FILTER_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [from, to, keyword]);

  function applyDates(nextFrom: string, nextTo: string) {
    setFrom(nextFrom);
    setTo(nextTo);
    taskSync.setFilter({ ...dayRange(nextFrom, nextTo), keyword });
  }

  return (
    <form className="task-filters" role="search" aria-label={t('tasks.filter.label')} onSubmit={(e) => e.preventDefault()}>
      <div className="task-filters__field">
        <label htmlFor={`${id}-from`}>{t('tasks.filter.from')}</label>
        <input id={`${id}-from`} type="date" value={from} max={to || undefined} onChange={(e) => applyDates(e.target.value, to)} />
      </div>
      <div className="task-filters__field">
        <label htmlFor={`${id}-to`}>{t('tasks.filter.to')}</label>
        <input id={`${id}-to`} type="date" value={to} min={from || undefined} onChange={(e) => applyDates(from, e.target.value)} />
      </div>
      <div className="task-filters__field task-filters__keyword">
        <label htmlFor={`${id}-kw`}>{t('tasks.filter.keyword')}</label>
        <input id={`${id}-kw`} type="search" value={keyword} onChange={(e) => setKeyword(e.target.value)} />
      </div>
      {(from !== '' || to !== '' || keyword !== '') && (
        <button
          type="button"
          className="button--link task-filters__clear"
          onClick={() => {
            setKeyword('');
            applyDates('', '');
            taskSync.setFilter({ timeFrom: null, timeTo: null, keyword: '' });
          }}
        >
          {t('tasks.filter.clear')}
        </button>
      )}
    </form>
  );
}
