// The leaderboards (issue 19 item 3, 6): every board's top entries for a
// window (day, week, month, all time), and one board in full.
import { useEffect, useState } from 'react';
import { Link } from '../app/Link';
import { api } from '../app/services';
import { useT } from '../i18n/useT';
import type { TimeType } from '../square/types';
import { rankDetail, rankIndex, WINDOWS } from './ranks';
import type { Board, RankEntry } from './ranks';
import { ErrorLine, useModelsHref } from './ui';

function Entries({ entries }: { entries: RankEntry[] }) {
  const href = useModelsHref();
  return (
    <ol className="models-rank">
      {entries.map((e) => (
        <li key={e.model_id} data-testid="rank-entry">
          <span className="models-rank__n">{e.rank}</span>
          {e.cover ? <img src={e.cover} alt="" loading="lazy" /> : <span className="models-rank__nocover" aria-hidden="true" />}
          <Link to={href({ view: 'detail', id: e.model_id })}>{e.name}</Link>
          <span className="muted">
            {e.author}
            {e.base_model && ` · ${e.base_model}`}
          </span>
          {e.score !== null && <span className="models-rank__score">{Math.round(e.score * 10) / 10}</span>}
        </li>
      ))}
    </ol>
  );
}

export function Leaderboards() {
  const t = useT();
  const [time, setTime] = useState<TimeType>('week');
  const [boards, setBoards] = useState<Board[] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [loaded, setLoaded] = useState<{ key: string; entries: RankEntry[] } | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let live = true;
    rankIndex(api, time).then(
      (b) => live && setBoards(b),
      (e: unknown) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [time]);

  useEffect(() => {
    if (open === null) return;
    let live = true;
    const key = `${open}:${time}`;
    rankDetail(api, open, time).then(
      (l) => live && setLoaded({ key, entries: l }),
      (e: unknown) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [open, time]);

  const full = loaded !== null && loaded.key === `${open}:${time}` ? loaded.entries : null;
  return (
    <div className="models-boards" data-testid="leaderboards">
      <h1>{t('models.nav.leaderboards')}</h1>
      <div role="tablist" className="models-tabs" aria-label={t('models.time')}>
        {WINDOWS.map((w) => (
          <button key={w} type="button" role="tab" aria-selected={time === w} className={time === w ? 'button button--primary' : 'button'} onClick={() => setTime(w)}>
            {t(`models.time.${w}`)}
          </button>
        ))}
      </div>
      <ErrorLine error={error} />
      {open !== null ? (
        <section className="panel">
          <button type="button" className="button button--link" onClick={() => setOpen(null)}>
            ← {t('models.boards.all')}
          </button>
          <h2>{boards?.find((b) => b.rank_type === open)?.title ?? open}</h2>
          {full === null ? <p className="muted">{t('models.loading')}</p> : full.length === 0 ? <p className="muted">{t('models.boards.empty')}</p> : <Entries entries={full} />}
        </section>
      ) : (
        <div className="models-boards__grid">
          {(boards ?? []).map((b) => (
            <section key={b.rank_type} className="panel" data-testid="board" aria-label={b.title}>
              <h2>{b.title}</h2>
              {b.entries.length === 0 ? <p className="muted">{t('models.boards.empty')}</p> : <Entries entries={b.entries.slice(0, 3)} />}
              <button type="button" className="button button--link" onClick={() => setOpen(b.rank_type)}>
                {t('models.boards.more')}
              </button>
            </section>
          ))}
        </div>
      )}
    </div>
  );
}
