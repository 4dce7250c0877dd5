// One popup's statistics in the composer's list: shown, closed, clicked and
// "don't show again", each as a total with the distinct viewers behind it.
import { useT } from '../i18n/useT';
import type { PopupStats, Tally } from './types';

/** Distinct viewers (accounts and visitors) behind a tally. */
export function viewers(t: Tally): number {
  return t.accounts + t.visitors;
}

/** Clicks per distinct viewer shown, as a whole percentage (null: never shown). */
export function clickRate(s: PopupStats): number | null {
  const shown = viewers(s.shown);
  return shown === 0 ? null : Math.round((100 * viewers(s.clicked)) / shown);
}

export function PopupStatsLine({ stats }: { stats: PopupStats }) {
  const t = useT();
  const part = (key: 'home.stats.shown' | 'home.stats.closed' | 'home.stats.clicked', x: Tally) =>
    t(key, { total: x.total, viewers: viewers(x), accounts: x.accounts, visitors: x.visitors });
  const rate = clickRate(stats);
  return (
    <small className="home-stats muted" data-testid="popup-stats" data-id={stats.id}>
      {' '}
      · {part('home.stats.shown', stats.shown)} · {part('home.stats.closed', stats.closed)} · {part('home.stats.clicked', stats.clicked)} ·{' '}
      {t('home.stats.dontPop', { viewers: viewers(stats.dont_pop) })}
      {rate !== null && <> · {t('home.stats.rate', { rate })}</>}
    </small>
  );
}
