import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { saveNsfwMode } from './actions';
import { nsfwModeAtom, nsfwModesAtom } from './atoms';
import type { NsfwMode } from './atoms';
import { hasFilter, isFiltered, ORDERS, OUTPUT_TYPES, TIME_TYPES, toggleOutput } from './filters';
import type { FeedFilters, PageKey } from './filters';

export interface FilterBarProps {
  page: PageKey;
  value: FeedFilters;
  onChange: (next: FeedFilters) => void;
}

/** The tabs (preference) and the filter chips a page key shows (spec 3 §2). */
export function FilterBar({ page, value, onChange }: FilterBarProps) {
  const t = useT();
  const nsfwMode = useAtomValue(nsfwModeAtom);
  const modes = useAtomValue(nsfwModesAtom);
  return (
    <div className="sq-filters">
      {hasFilter(page, 'preference') && (
        <div className="tabs sq-tabs" role="tablist" aria-label={t('square.filter.order')}>
          {ORDERS.map((o) => (
            <button
              key={o}
              type="button"
              role="tab"
              className="tabs__tab"
              aria-selected={value.order_by === o}
              onClick={() => onChange({ ...value, order_by: o })}
            >
              {t(`square.order.${o}`)}
            </button>
          ))}
        </div>
      )}
      <div className="sq-filters__row" role="group" aria-label={t('square.filter.label')}>
        {hasFilter(page, 'timeType') && (
          <fieldset className="chips">
            <legend className="chips__legend">{t('square.filter.time')}</legend>
            {TIME_TYPES.map((tt) => (
              <label key={tt} className={`chip${value.time_type === tt ? ' chip--on' : ''}`}>
                <input type="radio" name={`${page}-time`} checked={value.time_type === tt} onChange={() => onChange({ ...value, time_type: tt })} />
                {t(`square.time.${tt}`)}
              </label>
            ))}
          </fieldset>
        )}
        {(hasFilter(page, 'resourceType') || hasFilter(page, 'postType')) && (
          <fieldset className="chips">
            <legend className="chips__legend">{t('square.filter.type')}</legend>
            {OUTPUT_TYPES.map((o) => (
              <label key={o} className={`chip${value.output_types.includes(o) ? ' chip--on' : ''}`}>
                <input type="checkbox" checked={value.output_types.includes(o)} onChange={() => onChange(toggleOutput(value, o))} />
                {t(`square.filter.kind.${o}`)}
              </label>
            ))}
          </fieldset>
        )}
        {value.tag !== '' && (
          <span className="chip chip--on sq-tag-filter">
            #{value.tag}
            <button type="button" className="icon-button sq-tag-filter__x" aria-label={t('square.filter.clearTag', { tag: value.tag })} onClick={() => onChange({ ...value, tag: '' })}>
              ×
            </button>
          </span>
        )}
        <label className="sq-nsfw-optin">
          {t('square.nsfw.mode')}
          <select value={nsfwMode} onChange={(e) => void saveNsfwMode(e.target.value as NsfwMode).catch(() => undefined)} data-testid="nsfw-mode">
            {modes.map((m) => (
              <option key={m} value={m}>
                {t(`square.nsfw.mode.${m}`)}
              </option>
            ))}
          </select>
        </label>
        {isFiltered(value) && (
          <button type="button" className="button button--link" onClick={() => onChange({ ...value, time_type: 'all', output_types: [], tag: '' })}>
            {t('square.filter.clear')}
          </button>
        )}
      </div>
    </div>
  );
}
