// One Chart.js chart on a canvas: created on mount, updated when its
// configuration changes, destroyed on unmount. Only the controllers and
// scales the dashboard uses are registered (the rest is tree-shaken).
import { useEffect, useRef } from 'react';
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';
import type { ChartConfiguration } from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Tooltip, Legend);

export function ChartCanvas({ config, label, testId }: { config: ChartConfiguration; label: string; testId?: string }) {
  const canvas = useRef<HTMLCanvasElement | null>(null);
  useEffect(() => {
    const el = canvas.current;
    // jsdom has no 2D context; a chart there would only throw.
    if (el === null || !el.getContext('2d')) return;
    const chart = new Chart(el, config);
    return () => chart.destroy();
  }, [config]);
  return (
    <div className="analytics-chart">
      <canvas ref={canvas} role="img" aria-label={label} data-testid={testId} />
    </div>
  );
}
