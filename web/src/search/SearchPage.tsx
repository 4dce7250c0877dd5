import { useCallback, useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, locationAtom } from '../router/router';
import { squareApi } from '../square/actions';
import { FeedGrid } from '../square/FeedGrid';
import { searchPath, tagPath } from '../square/route';
import { SEARCH_KINDS } from '../square/types';
import type { SearchKind, TermCount } from '../square/types';
import { useAtomValue } from '../state/jotai';
import { useErrorText } from '../tavern/useErrorText';
import { useLoaded } from '../tavern/useLoaded';
import { SearchBox } from './SearchBox';
import '../square/square.css';
import './search.css';

/** The search page's query: `q` and `kind` (an unknown kind is "all"). */
export function readSearchQuery(search: string): { q: string; kind: SearchKind } {
  const params = new URLSearchParams(search);
  const q = (params.get('q') ?? '').trim();
  const k = params.get('kind') ?? 'all';
  return { q, kind: (SEARCH_KINDS as readonly string[]).includes(k) ? (k as SearchKind) : 'all' };
}

/** `/search?q=&kind=`: results as cards by kind; hot terms and the viewer's history while empty. */
export function SearchPage() {
  const t = useT();
  const { q, kind } = readSearchQuery(useAtomValue(locationAtom).search);
  return (
    <div className="search-page" data-testid="search-page">
      <SearchBox initial={q} kind={kind} className="search-page__box" autoFocus={q === ''} />
      {q === '' ? <SearchStart /> : <Results q={q} kind={kind} />}
      {q === '' && <p className="visually-hidden">{t('search.empty')}</p>}
    </div>
  );
}

function Results({ q, kind }: { q: string; kind: SearchKind }) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const loggedIn = useAtomValue(loggedInAtom);
  const load = useCallback((cursor: string | null) => squareApi.search(q, kind, cursor), [q, kind]);
  return (
    <>
      <nav className="tabs search-page__kinds" aria-label={t('search.kinds')}>
        {SEARCH_KINDS.map((k) => (
          <Link key={k} to={localePath(locale, searchPath(q, k))} replace className="tabs__tab" aria-selected={k === kind} aria-current={k === kind ? 'page' : undefined}>
            {t(`search.kind.${k}`)}
          </Link>
        ))}
      </nav>
      <h1 className="search-page__title">{t('search.resultsFor', { q })}</h1>
      <FeedGrid load={load} deps={[q, kind, loggedIn]} label={t('search.results')} emptyText={t('search.none', { q })} />
    </>
  );
}

function TermChips({ items, onDelete, hrefOf = (text) => searchPath(text) }: { items: TermCount[]; onDelete?: (text: string) => void; hrefOf?: (text: string) => string }) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  return (
    <ul className="search-terms">
      {items.map((item) => (
        <li key={item.text} className="search-terms__item">
          <Link to={localePath(locale, hrefOf(item.text))} className="chip">
            {item.text}
          </Link>
          {onDelete && (
            <button type="button" className="icon-button search-terms__del" aria-label={t('search.history.delete', { term: item.text })} onClick={() => onDelete(item.text)}>
              ×
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}

function SearchStart() {
  const t = useT();
  const errorText = useErrorText();
  const loggedIn = useAtomValue(loggedInAtom);
  const hot = useLoaded(() => squareApi.hotTerms(), [], [] as TermCount[]);
  const tags = useLoaded(() => squareApi.hotTags(), [], [] as TermCount[]);
  const history = useLoaded(() => (loggedIn ? squareApi.history() : Promise.resolve([] as TermCount[])), [loggedIn], [] as TermCount[]);
  const [error, setError] = useState<string | null>(null);

  async function clear() {
    setError(null);
    try {
      await squareApi.clearHistory();
      history.setValue([]);
    } catch (e) {
      setError(errorText(e));
    }
  }

  async function remove(text: string) {
    setError(null);
    try {
      await squareApi.deleteHistory(text);
      history.setValue((h) => h.filter((x) => x.text !== text));
    } catch (e) {
      setError(errorText(e));
    }
  }

  return (
    <div className="search-start">
      {error !== null && (
        <p className="sq-error" role="alert">
          {error}
        </p>
      )}
      {loggedIn && history.value.length > 0 && (
        <section className="search-start__section" data-testid="search-history">
          <div className="search-start__head">
            <h2>{t('search.history.title')}</h2>
            <button type="button" className="button button--link" onClick={() => void clear()}>
              {t('search.history.clear')}
            </button>
          </div>
          <TermChips items={history.value} onDelete={(x) => void remove(x)} />
        </section>
      )}
      <section className="search-start__section" data-testid="search-hot">
        <h2>{t('search.hot')}</h2>
        {hot.value.length > 0 ? <TermChips items={hot.value} /> : <p className="muted">{hot.loading ? t('square.loading') : t('search.hotNone')}</p>}
      </section>
      {tags.value.length > 0 && (
        <section className="search-start__section">
          <h2>{t('search.tags')}</h2>
          <TermChips items={tags.value} hrefOf={tagPath} />
        </section>
      )}
    </div>
  );
}
