import { useEffect, useId, useState } from 'react';
import type { FormEvent, KeyboardEvent } from 'react';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, navigate } from '../router/router';
import { squareApi } from '../square/actions';
import { searchPath } from '../square/route';
import { appStore, useAtomValue } from '../state/jotai';

/** Completion waits this long after the last key (spec 3 §7 Search: "as you type"). */
export const COMPLETE_DEBOUNCE_MS = 250;

/** The keyword's completions, read once typing pauses; an older answer never replaces a newer one. */
export function useCompletion(keyword: string, enabled: boolean): string[] {
  const [items, setItems] = useState<{ for: string; items: string[] }>({ for: '', items: [] });
  const k = keyword.trim();
  useEffect(() => {
    if (!enabled || k === '') return;
    const abort = new AbortController();
    const timer = setTimeout(() => {
      squareApi.complete(k, abort.signal).then(
        (got) => {
          if (!abort.signal.aborted) setItems({ for: k, items: got });
        },
        () => undefined,
      );
    }, COMPLETE_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [k, enabled]);
  return enabled && k !== '' && items.for === k ? items.items : [];
}

/** A search field with completion as you type; Enter or a completion opens the search page. */
export function SearchBox({ initial = '', kind = 'all', className = '', autoFocus = false }: { initial?: string; kind?: string; className?: string; autoFocus?: boolean }) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const [text, setText] = useState(initial);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const listId = useId();
  const inputId = useId();
  const items = useCompletion(text, open);

  // A new query in the address (another search, back and forward) shows in the field.
  const [shownInitial, setShownInitial] = useState(initial);
  if (shownInitial !== initial) {
    setShownInitial(initial);
    setText(initial);
  }

  function go(q: string) {
    setOpen(false);
    setActive(-1);
    setText(q);
    if (q.trim() === '') return;
    navigate(appStore, localePath(locale, searchPath(q, kind)));
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    go(active >= 0 && items[active] !== undefined ? items[active] : text);
  }

  function onKeyDown(e: KeyboardEvent<HTMLInputElement>) {
    if (e.key === 'ArrowDown' && items.length > 0) {
      e.preventDefault();
      setOpen(true);
      setActive((a) => (a + 1) % items.length);
    } else if (e.key === 'ArrowUp' && items.length > 0) {
      e.preventDefault();
      setActive((a) => (a <= 0 ? items.length - 1 : a - 1));
    } else if (e.key === 'Escape') {
      setOpen(false);
      setActive(-1);
    }
  }

  const showList = open && items.length > 0;
  return (
    <form role="search" className={`search-box ${className}`} onSubmit={onSubmit}>
      <label htmlFor={inputId} className="visually-hidden">
        {t('search.label')}
      </label>
      <input
        id={inputId}
        type="search"
        className="search-box__input"
        value={text}
        placeholder={t('search.placeholder')}
        autoComplete="off"
        autoFocus={autoFocus}
        role="combobox"
        aria-expanded={showList}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={showList && active >= 0 ? `${listId}-${active}` : undefined}
        onChange={(e) => {
          setText(e.target.value);
          setOpen(true);
          setActive(-1);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onKeyDown={onKeyDown}
        data-testid="search-input"
      />
      <ul id={listId} role="listbox" className="search-box__list" hidden={!showList} aria-label={t('search.suggestions')}>
        {items.map((item, i) => (
          <li
            key={item}
            id={`${listId}-${i}`}
            role="option"
            aria-selected={i === active}
            className="search-box__option"
            onMouseDown={(e) => {
              e.preventDefault();
              go(item);
            }}
            data-testid="search-suggestion"
          >
            {item}
          </li>
        ))}
      </ul>
    </form>
  );
}
