import { useCallback, useEffect } from 'react';
import { accountAtom, loggedInAtom } from '../account/atoms';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, locationAtom, navigate } from '../router/router';
import { appStore, useAtom, useAtomValue } from '../state/jotai';
import { squareApi } from './actions';
import { homeFiltersAtom } from './atoms';
import { FeedGrid } from './FeedGrid';
import { feedRequest } from './filters';
import { FilterBar } from './FilterBar';
import { HomeSlot } from '../home/HomeSlot';
import './square.css';

/** `/{locale}/`: the home square (spec 3 §2 page key "home"): tabs, filters, the feed. */
export function SquarePage() {
  const t = useT();
  const [filters, setFilters] = useAtom(homeFiltersAtom);
  const loggedIn = useAtomValue(loggedInAtom);
  const account = useAtomValue(accountAtom);
  const search = useAtomValue(locationAtom).search;
  const locale = useAtomValue(localeAtom);
  const urlTag = new URLSearchParams(search).get('tag')?.trim() ?? '';

  // `?tag=` (a tag link) narrows the square to that tag.
  useEffect(() => {
    if (urlTag !== '') setFilters((f) => (f.tag === urlTag ? f : { ...f, tag: urlTag }));
  }, [urlTag, setFilters]);

  const load = useCallback((cursor: string | null) => squareApi.feed('home', feedRequest('home', filters, cursor)), [filters]);
  const followsNeedLogin = filters.order_by === 'follows' && !loggedIn;
  return (
    <div className="square" data-testid="square">
      <header className="square__head">
        <h1 className="square__title">{t('square.title')}</h1>
        <p className="muted">{loggedIn ? t('square.welcome', { name: account?.name ?? '…' }) : t('square.tagline')}</p>
      </header>
      <HomeSlot name="home-top" />
      <HomeSlot name="home-modules" />
      <FilterBar
        page="home"
        value={filters}
        onChange={(next) => {
          setFilters(next);
          // Dropping the tag also drops it from the address, so a reload does not bring it back.
          if (next.tag === '' && urlTag !== '') navigate(appStore, localePath(locale, '/'), { replace: true });
        }}
      />
      {followsNeedLogin ? (
        <p className="sq-note">{t('square.followsLogin')}</p>
      ) : (
        <FeedGrid
          load={load}
          deps={[filters, loggedIn]}
          label={t('square.feedLabel')}
          emptyText={filters.order_by === 'follows' ? t('square.emptyFollows') : t('square.empty')}
        />
      )}
    </div>
  );
}
