import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { useT } from '../i18n/useT';
import { useAtom } from '../state/jotai';
import { characterQueryAtom } from './atoms';
import { GENDERS } from './model';
import type { Gender, OrderBy, TypeFilter } from './model';

const ORDERS: readonly OrderBy[] = ['new', 'hot'];
const TYPES: readonly TypeFilter[] = [0, 1, 2];

/** Spec 3 §2 "cyberPub": sort, genders, character type, and a keyword. */
export function Filters() {
  const t = useT();
  const [query, setQuery] = useAtom(characterQueryAtom);
  const [keyword, setKeyword] = useState(query.keyword);
  const keywordId = useId();

  function toggleGender(g: Gender) {
    setQuery((q) => ({ ...q, genders: q.genders.includes(g) ? q.genders.filter((x) => x !== g) : [...q.genders, g] }));
  }

  function onSearch(e: FormEvent) {
    e.preventDefault();
    setQuery((q) => ({ ...q, keyword: keyword.trim() }));
  }

  const filtered = query.genders.length > 0 || query.character_type !== 0 || query.keyword !== '';

  return (
    <div className="tavern-filters" role="group" aria-label={t('tavern.filter.label')}>
      <form className="tavern-filters__search" role="search" onSubmit={onSearch}>
        <label htmlFor={keywordId} className="visually-hidden">
          {t('tavern.filter.keyword')}
        </label>
        <input
          id={keywordId}
          type="search"
          className="tavern-input"
          value={keyword}
          placeholder={t('tavern.filter.keyword')}
          onChange={(e) => setKeyword(e.target.value)}
        />
        <button type="submit" className="button">
          {t('tavern.filter.search')}
        </button>
      </form>
      <fieldset className="chips">
        <legend className="chips__legend">{t('tavern.filter.sort')}</legend>
        {ORDERS.map((o) => (
          <label key={o} className={`chip${query.order_by === o ? ' chip--on' : ''}`}>
            <input type="radio" name="tavern-order" checked={query.order_by === o} onChange={() => setQuery((q) => ({ ...q, order_by: o }))} />
            {t(o === 'new' ? 'tavern.filter.new' : 'tavern.filter.hot')}
          </label>
        ))}
      </fieldset>
      <fieldset className="chips">
        <legend className="chips__legend">{t('tavern.filter.type')}</legend>
        {TYPES.map((ty) => (
          <label key={ty} className={`chip${query.character_type === ty ? ' chip--on' : ''}`}>
            <input type="radio" name="tavern-type" checked={query.character_type === ty} onChange={() => setQuery((q) => ({ ...q, character_type: ty }))} />
            {t(`tavern.type.${ty}`)}
          </label>
        ))}
      </fieldset>
      <fieldset className="chips">
        <legend className="chips__legend">{t('tavern.filter.genders')}</legend>
        {GENDERS.map((g) => (
          <label key={g} className={`chip${query.genders.includes(g) ? ' chip--on' : ''}`}>
            <input type="checkbox" checked={query.genders.includes(g)} onChange={() => toggleGender(g)} />
            {t(`tavern.gender.${g}`)}
          </label>
        ))}
      </fieldset>
      {filtered && (
        <button
          type="button"
          className="button button--link tavern-filters__clear"
          onClick={() => {
            setKeyword('');
            setQuery((q) => ({ ...q, genders: [], character_type: 0, keyword: '' }));
          }}
        >
          {t('tavern.filter.clear')}
        </button>
      )}
    </div>
  );
}
