// The operators' analytics tab (`/operate/analytics`, issue 22): daily
// active users, the funnel visit → sign-up → first generation → purchase,
// weekly retention cohorts as a heat map, and client errors by release,
// over a date range. Charts draw with Chart.js; every figure is also in a
// table (readable without the chart, and what the browser tests read).
import { useEffect, useMemo, useState } from 'react';
import type { ChartConfiguration } from 'chart.js';
import { FormError } from '../account/FormError';
import { api } from '../app/services';
import { errorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { analyticsApi, heatColor, heatText, isoDay, retentionRate } from './api';
import type { Cohort, DauDay, Funnel, ReleaseErrors } from './api';
import { ChartCanvas } from './ChartCanvas';
import './analytics.css';

const calls = analyticsApi(api);

interface Figures {
  dau: DauDay[];
  funnel: Funnel;
  cohorts: Cohort[];
  errors: ReleaseErrors[];
}

interface Query {
  from: string;
  to: string;
  windowDays: number;
}

interface Result {
  query: Query;
  figures: Figures | null;
  error: ErrorMessage | null;
}

async function fetchFigures(q: Query): Promise<Figures> {
  const range = { from: q.from, to: q.to };
  const [dau, funnel, retention, errors] = await Promise.all([
    calls.dau(range),
    calls.funnel({ ...range, window_days: q.windowDays }),
    calls.retention(range),
    calls.errors(range),
  ]);
  return { dau: dau.days, funnel, cohorts: retention.cohorts, errors: errors.releases };
}

export function AnalyticsDashboard() {
  const t = useT();
  const [from, setFrom] = useState(() => isoDay(new Date(), 29));
  const [to, setTo] = useState(() => isoDay(new Date()));
  const [windowDays, setWindowDays] = useState(7);
  const [query, setQuery] = useState<Query>(() => ({ from, to, windowDays }));
  const [result, setResult] = useState<Result | null>(null);

  useEffect(() => {
    let live = true;
    fetchFigures(query).then(
      (figures) => {
        if (live) setResult({ query, figures, error: null });
      },
      (e: unknown) => {
        if (live) setResult({ query, figures: null, error: errorMessage(e) });
      },
    );
    return () => {
      live = false;
    };
  }, [query]);

  const loading = result?.query !== query;
  const figures = result?.figures ?? null;
  const error = loading ? null : (result?.error ?? null);
  const load = () => setQuery({ from, to, windowDays });

  return (
    <section className="analytics" data-testid="analytics-dashboard">
      <form
        className="analytics-range"
        onSubmit={(e) => {
          e.preventDefault();
          load();
        }}
      >
        <label>
          {t('analytics.from')} <input type="date" value={from} onChange={(e) => setFrom(e.target.value)} data-testid="analytics-from" />
        </label>
        <label>
          {t('analytics.to')} <input type="date" value={to} onChange={(e) => setTo(e.target.value)} data-testid="analytics-to" />
        </label>
        <label>
          {t('analytics.window')}{' '}
          <input type="number" min={1} max={90} value={windowDays} onChange={(e) => setWindowDays(Number(e.target.value))} />
        </label>
        <button type="submit" disabled={loading} data-testid="analytics-refresh">
          {t('analytics.refresh')}
        </button>
      </form>
      <p className="muted">{t('analytics.privacy')}</p>
      <FormError error={error} />
      {figures === null ? (
        <p className="muted">{loading ? t('analytics.loading') : ''}</p>
      ) : (
        <>
          <DauPanel days={figures.dau} />
          <FunnelPanel funnel={figures.funnel} />
          <RetentionPanel cohorts={figures.cohorts} />
          <ErrorsPanel releases={figures.errors} />
        </>
      )}
    </section>
  );
}

function DauPanel({ days }: { days: DauDay[] }) {
  const t = useT();
  const config = useMemo<ChartConfiguration>(
    () => ({
      type: 'line',
      data: {
        labels: days.map((d) => d.day),
        datasets: [
          { label: t('analytics.dau.active'), data: days.map((d) => d.active), borderColor: '#2563eb', backgroundColor: '#2563eb' },
          { label: t('analytics.dau.accounts'), data: days.map((d) => d.accounts), borderColor: '#16a34a', backgroundColor: '#16a34a' },
        ],
      },
      options: { responsive: true, maintainAspectRatio: false, animation: false, scales: { y: { beginAtZero: true, ticks: { precision: 0 } } } },
    }),
    [days, t],
  );
  return (
    <div className="analytics-panel">
      <h2>{t('analytics.dau.title')}</h2>
      <ChartCanvas config={config} label={t('analytics.dau.title')} />
      <table className="analytics-table" data-testid="analytics-dau">
        <thead>
          <tr>
            <th>{t('analytics.day')}</th>
            <th>{t('analytics.dau.active')}</th>
            <th>{t('analytics.dau.accounts')}</th>
            <th>{t('analytics.dau.visitors')}</th>
          </tr>
        </thead>
        <tbody>
          {[...days].reverse().map((d) => (
            <tr key={d.day} data-day={d.day} data-active={d.active}>
              <td>{d.day}</td>
              <td>{d.active}</td>
              <td>{d.accounts}</td>
              <td>{d.visitors}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function FunnelPanel({ funnel }: { funnel: Funnel }) {
  const t = useT();
  const config = useMemo<ChartConfiguration>(
    () => ({
      type: 'bar',
      data: {
        labels: funnel.steps.map((s) => t(`analytics.funnel.${s.step}`)),
        datasets: [{ label: t('analytics.funnel.people'), data: funnel.steps.map((s) => s.count), backgroundColor: '#7c3aed' }],
      },
      options: { indexAxis: 'y', responsive: true, maintainAspectRatio: false, animation: false, plugins: { legend: { display: false } } },
    }),
    [funnel, t],
  );
  return (
    <div className="analytics-panel">
      <h2>{t('analytics.funnel.title')}</h2>
      <p className="muted">{t('analytics.funnel.note', { days: funnel.window_days })}</p>
      <ChartCanvas config={config} label={t('analytics.funnel.title')} />
      <table className="analytics-table" data-testid="analytics-funnel">
        <tbody>
          {funnel.steps.map((s) => (
            <tr key={s.step} data-step={s.step} data-count={s.count}>
              <td>{t(`analytics.funnel.${s.step}`)}</td>
              <td>{s.count}</td>
              <td>{Math.round(s.rate * 1000) / 10}%</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RetentionPanel({ cohorts }: { cohorts: Cohort[] }) {
  const t = useT();
  const weeks = cohorts.reduce((n, c) => Math.max(n, c.retained.length), 0);
  return (
    <div className="analytics-panel">
      <h2>{t('analytics.retention.title')}</h2>
      {cohorts.length === 0 ? (
        <p className="muted">{t('analytics.none')}</p>
      ) : (
        <table className="analytics-table analytics-heat" data-testid="analytics-retention">
          <thead>
            <tr>
              <th>{t('analytics.retention.week')}</th>
              <th>{t('analytics.retention.size')}</th>
              {Array.from({ length: weeks }, (_, n) => (
                <th key={n}>{t('analytics.retention.weekN', { n })}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {cohorts.map((c) => (
              <tr key={c.week} data-week={c.week}>
                <td>{c.week}</td>
                <td>{c.size}</td>
                {Array.from({ length: weeks }, (_, n) => {
                  if (n >= c.retained.length) return <td key={n} />;
                  const rate = retentionRate(c, n);
                  return (
                    <td key={n} style={{ background: heatColor(rate), color: heatText(rate) }} title={`${c.retained[n]} / ${c.size}`}>
                      {Math.round(rate * 100)}%
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function ErrorsPanel({ releases }: { releases: ReleaseErrors[] }) {
  const t = useT();
  const config = useMemo<ChartConfiguration>(
    () => ({
      type: 'bar',
      data: {
        labels: releases.map((r) => r.release),
        datasets: [{ label: t('analytics.errors.count'), data: releases.map((r) => r.errors), backgroundColor: '#dc2626' }],
      },
      options: { responsive: true, maintainAspectRatio: false, animation: false, plugins: { legend: { display: false } } },
    }),
    [releases, t],
  );
  return (
    <div className="analytics-panel">
      <h2>{t('analytics.errors.title')}</h2>
      {releases.length === 0 ? (
        <p className="muted">{t('analytics.none')}</p>
      ) : (
        <>
          <ChartCanvas config={config} label={t('analytics.errors.title')} />
          <table className="analytics-table" data-testid="analytics-errors">
            <thead>
              <tr>
                <th>{t('analytics.errors.release')}</th>
                <th>{t('analytics.errors.count')}</th>
                <th>{t('analytics.errors.people')}</th>
                <th>{t('analytics.errors.top')}</th>
              </tr>
            </thead>
            <tbody>
              {releases.map((r) => (
                <tr key={r.release} data-release={r.release}>
                  <td>{r.release}</td>
                  <td>{r.errors}</td>
                  <td>{r.people}</td>
                  <td>{r.top.map((m) => `${m.message} (${m.count})`).join('; ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}
