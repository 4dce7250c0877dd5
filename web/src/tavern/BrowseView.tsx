import { useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { tavernApi } from './actions';
import type { CharacterQuery } from './api';
import { characterQueryAtom } from './atoms';
import { CharacterGrid } from './CharacterTile';
import { Filters } from './Filters';
import type { CharacterCard } from './model';
import { RecentRow } from './RecentRow';
import { useErrorText } from './useErrorText';
import { useLoaded } from './useLoaded';

interface Grid {
  items: CharacterCard[];
  cursor: string | null;
  /** Why the last "load more" failed. */
  moreError: string | null;
}

const NO_GRID: Grid = { items: [], cursor: null, moreError: null };

function firstPage(query: CharacterQuery): Promise<Grid> {
  return tavernApi.list(query, null).then((page) => ({ items: page.items, cursor: page.items.length === 0 ? null : page.cursor, moreError: null }));
}

/** The published characters with the filters; more load on demand. */
export function BrowseView() {
  const t = useT();
  const errorText = useErrorText();
  const query = useAtomValue(characterQueryAtom);
  const loggedIn = useAtomValue(loggedInAtom);
  const grid = useLoaded(() => firstPage(query), [query], NO_GRID);
  const setGrid = grid.setValue;
  // A first page that failed shows no cards (and no "more") until a retry or another query answers.
  const state = grid.failed ? NO_GRID : grid.value;
  const error = grid.failed ? errorText(grid.error) : state.moreError;
  const [loadingMore, setLoadingMore] = useState(false);

  async function more() {
    if (state.cursor === null) return;
    // The grid this page continues: when another query's first page (or a retry) has replaced
    // it by the time the page answers, the page belongs to nothing on screen and is dropped.
    const base = state;
    setLoadingMore(true);
    try {
      const page = await tavernApi.list(query, state.cursor);
      setGrid((s) =>
        s !== base
          ? s
          : {
              items: [...s.items, ...page.items.filter((c) => !s.items.some((x) => x.id === c.id))],
              cursor: page.items.length === 0 ? null : page.cursor,
              moreError: null,
            },
      );
    } catch (e) {
      setGrid((s) => (s !== base ? s : { ...s, moreError: errorText(e) }));
    } finally {
      setLoadingMore(false);
    }
  }

  const loading = grid.loading || loadingMore;
  const filtered = query.genders.length > 0 || query.character_type !== 0 || query.keyword !== '';
  return (
    <div className="tavern__browse">
      {loggedIn && <RecentRow />}
      <Filters />
      {error !== null && (
        <p className="tavern__error" role="alert">
          {error}{' '}
          <button type="button" className="button button--link" onClick={grid.reload}>
            {t('tavern.retry')}
          </button>
        </p>
      )}
      <CharacterGrid cards={state.items} label={t('tavern.browse')} />
      {!loading && error === null && state.items.length === 0 && (
        <p className="tavern__empty">{t(filtered ? 'tavern.empty' : 'tavern.emptyAll')}</p>
      )}
      {loading && (
        <p className="tavern__note" aria-live="polite">
          {t('tavern.loading')}
        </p>
      )}
      {!loading && state.cursor !== null && (
        <button type="button" className="button tavern__more" onClick={() => void more()}>
          {t('tavern.loadMore')}
        </button>
      )}
    </div>
  );
}
