import { useEffect, useId, useState } from 'react';
import { useT } from '../../i18n/useT';
import { fetchDefinitions, type Definition, type DefinitionCategory, type Poster } from './api';
import { DICTIONARY_VERSION } from './model';

export interface DictionaryPadProps {
  api: Poster;
  language: string;
  /** Kept mounted but not shown (its terms stay loaded). */
  hidden?: boolean;
  isAdded(term: string): boolean;
  onAdd(definition: Definition): void;
}

interface Pages {
  key: string;
  items: Definition[];
  total: number;
  next: string | null;
  categories: DefinitionCategory[];
}

type Load = { state: 'idle' } | { state: 'loading'; key: string; cursor: string | null } | { state: 'error'; key: string };

/** The prompt dictionary: terms by category from the server, in the user's language; a click adds a term. */
export function DictionaryPad({ api, language, hidden = false, isAdded, onAdd }: DictionaryPadProps) {
  const t = useT();
  const selectId = useId();
  const [category, setCategory] = useState('');
  const key = `${language}|${category}`;
  const [pages, setPages] = useState<Pages | null>(null);
  const [load, setLoad] = useState<Load>({ state: 'loading', key, cursor: null });
  const current = pages?.key === key ? pages : null;

  // A change of language or category starts again from the first page.
  const [seenKey, setSeenKey] = useState(key);
  if (seenKey !== key) {
    setSeenKey(key);
    setLoad({ state: 'loading', key, cursor: null });
  }

  useEffect(() => {
    if (load.state !== 'loading') return;
    const controller = new AbortController();
    const [lang, cat] = load.key.split('|');
    fetchDefinitions(api, { language: lang ?? 'en', category: cat || null, cursor: load.cursor }, controller.signal)
      .then((page) => {
        setPages((prev) => ({
          key: load.key,
          items: load.cursor !== null && prev?.key === load.key ? [...prev.items, ...page.items] : page.items,
          total: page.total,
          next: page.next_cursor,
          categories: page.categories,
        }));
        setLoad({ state: 'idle' });
      })
      .catch((error: unknown) => {
        if (error instanceof DOMException && error.name === 'AbortError') return;
        console.warn('prompt editor: dictionary failed', error);
        setLoad({ state: 'error', key: load.key });
      });
    return () => controller.abort();
  }, [api, load]);

  const categories = current?.categories ?? pages?.categories ?? [];
  return (
    <aside className="dictionary" hidden={hidden} aria-label={t('promptEditor.dictionary')} data-testid="dictionary-pad">
      <header className="dictionary__head">
        <h3 className="dictionary__title">{t('promptEditor.dictionary')}</h3>
        <span className="dictionary__version muted">{t('promptEditor.dictionaryVersion', { version: DICTIONARY_VERSION })}</span>
      </header>
      <label htmlFor={selectId} className="visually-hidden">
        {t('promptEditor.dictionaryCategory')}
      </label>
      <select id={selectId} className="dictionary__category" value={category} onChange={(e) => setCategory(e.target.value)}>
        <option value="">{t('promptEditor.dictionaryAll')}</option>
        {categories.map((c) => (
          <option key={c.name} value={c.name}>
            {c.name} ({c.count})
          </option>
        ))}
      </select>
      <ul className="dictionary__terms">
        {(current?.items ?? []).map((d) => {
          const added = isAdded(d.text);
          return (
            <li key={`${d.dir}:${d.term}`}>
              <button
                type="button"
                className={`dictionary__term dictionary__term--${d.subType}${added ? ' dictionary__term--added' : ''}`}
                title={d.desc || d.text}
                aria-label={t('promptEditor.dictionaryAdd', { term: d.translated ? `${d.lang} (${d.text})` : d.text })}
                onClick={() => onAdd(d)}
              >
                <span>{d.lang}</span>
                {d.translated && <span className="dictionary__en">{d.text}</span>}
                {added && <span className="visually-hidden"> ({t('promptEditor.dictionaryAdded')})</span>}
              </button>
            </li>
          );
        })}
      </ul>
      <footer className="dictionary__foot">
        {current !== null && (
          <span className="muted">{t('promptEditor.dictionaryCount', { shown: current.items.length, total: current.total })}</span>
        )}
        {load.state === 'loading' && <span className="muted" role="status">{t('promptEditor.dictionaryLoading')}</span>}
        {load.state === 'error' && (
          <span role="alert">
            {t('promptEditor.dictionaryError')}{' '}
            <button type="button" className="button button--link" onClick={() => setLoad({ state: 'loading', key, cursor: current?.next ?? null })}>
              {t('promptEditor.dictionaryRetry')}
            </button>
          </span>
        )}
        {load.state === 'idle' && current?.next && (
          <button type="button" className="button button--small" onClick={() => setLoad({ state: 'loading', key, cursor: current.next })}>
            {t('promptEditor.dictionaryMore')}
          </button>
        )}
      </footer>
    </aside>
  );
}
