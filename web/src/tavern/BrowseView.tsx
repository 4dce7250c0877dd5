import { useEffect, useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { tavernApi } from './actions';
import { characterQueryAtom } from './atoms';
import { CharacterGrid } from './CharacterTile';
import { Filters } from './Filters';
import type { CharacterCard } from './model';
import { RecentRow } from './RecentRow';
import { useErrorText } from './useErrorText';

interface GridState {
  /** The query (and attempt) these items answer. */
  key: string;
  items: CharacterCard[];
  cursor: string | null;
  error: string | null;
}

/** The published characters with the filters; more load on demand. */
export function BrowseView() {
  const t = useT();
  const errorText = useErrorText();
  const query = useAtomValue(characterQueryAtom);
  const loggedIn = useAtomValue(loggedInAtom);
  const [attempt, setAttempt] = useState(0);
  const key = `${JSON.stringify(query)}#${attempt}`;
  const [state, setState] = useState<GridState>({ key: '', items: [], cursor: null, error: null });
  const [loadingMore, setLoadingMore] = useState(false);

  useEffect(() => {
    let gone = false;
    tavernApi
      .list(query, null)
      .then((page) => {
        if (!gone) setState({ key, items: page.items, cursor: page.items.length === 0 ? null : page.cursor, error: null });
      })
      .catch((e: unknown) => {
        if (!gone) setState({ key, items: [], cursor: null, error: errorText(e) });
      });
    return () => {
      gone = true;
    };
  }, [key, query, errorText]);

  async function more() {
    if (state.cursor === null) return;
    setLoadingMore(true);
    try {
      const page = await tavernApi.list(query, state.cursor);
      setState((s) => ({
        ...s,
        items: [...s.items, ...page.items.filter((c) => !s.items.some((x) => x.id === c.id))],
        cursor: page.items.length === 0 ? null : page.cursor,
        error: null,
      }));
    } catch (e) {
      setState((s) => ({ ...s, error: errorText(e) }));
    } finally {
      setLoadingMore(false);
    }
  }

  const loading = state.key !== key || loadingMore;
  const filtered = query.genders.length > 0 || query.character_type !== 0 || query.keyword !== '';
  return (
    <div className="tavern__browse">
      {loggedIn && <RecentRow />}
      <Filters />
      {state.error !== null && (
        <p className="tavern__error" role="alert">
          {state.error}{' '}
          <button type="button" className="button button--link" onClick={() => setAttempt((n) => n + 1)}>
            {t('tavern.retry')}
          </button>
        </p>
      )}
      <CharacterGrid cards={state.items} label={t('tavern.browse')} />
      {!loading && state.error === null && state.items.length === 0 && (
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
