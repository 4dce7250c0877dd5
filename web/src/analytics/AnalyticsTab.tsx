// The analytics tab's entry: the dashboard (and Chart.js with it) loads only
// when an operator opens the tab, so no one else downloads it.
import { lazy, Suspense } from 'react';
import { useT } from '../i18n/useT';

const Dashboard = lazy(() => import('./AnalyticsDashboard').then((m) => ({ default: m.AnalyticsDashboard })));

export function AnalyticsTab() {
  const t = useT();
  return (
    <Suspense fallback={<p className="muted">{t('analytics.loading')}</p>}>
      <Dashboard />
    </Suspense>
  );
}
