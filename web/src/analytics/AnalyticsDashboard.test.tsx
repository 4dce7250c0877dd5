// The dashboard against a scripted server: every figure the API answers
// appears in its table, and the range form asks again with its dates.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { appStore, Provider } from '../state/jotai';
import { AnalyticsDashboard } from './AnalyticsDashboard';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const answers: Record<string, unknown> = {
  '/api/v1/admin/analytics/dau': {
    from: '2026-11-01',
    to: '2026-11-02',
    days: [
      { day: '2026-11-01', active: 3, accounts: 2, visitors: 1 },
      { day: '2026-11-02', active: 5, accounts: 4, visitors: 1 },
    ],
  },
  '/api/v1/admin/analytics/funnel': {
    from: '2026-11-01',
    to: '2026-11-02',
    window_days: 7,
    steps: [
      { step: 'visit', count: 6, rate: 1 },
      { step: 'sign_up', count: 3, rate: 0.5 },
      { step: 'first_generation', count: 1, rate: 1 / 3 },
      { step: 'purchase', count: 1, rate: 1 },
    ],
  },
  '/api/v1/admin/analytics/retention': { from: '2026-10-26', to: '2026-11-02', cohorts: [{ week: '2026-11-02', size: 4, retained: [4, 2] }] },
  '/api/v1/admin/analytics/errors': { from: '2026-11-01', to: '2026-11-02', releases: [{ release: '1.0.0', errors: 2, people: 1, top: [{ message: 'boom', count: 2 }] }] },
};

afterEach(() => {
  document.body.innerHTML = '';
});

describe('AnalyticsDashboard', () => {
  it('shows every figure and asks again for a new range', async () => {
    const asked: Array<{ path: string; body: Record<string, unknown> }> = [];
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
      const path = String(input);
      const body = JSON.parse(String(init?.body ?? '{}')) as Record<string, unknown>;
      asked.push({ path, body });
      const data = answers[path];
      return Promise.resolve(
        new Response(JSON.stringify({ status: { code: data ? 10000 : 40400, msg: '', key: null }, data: data ?? null }), {
          headers: { 'Content-Type': 'application/json' },
        }),
      );
    });
    const container = document.createElement('div');
    document.body.appendChild(container);
    const root = createRoot(container);
    await act(async () => {
      root.render(
        <Provider store={appStore}>
          <AnalyticsDashboard />
        </Provider>,
      );
    });
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
    const dau = container.querySelector('[data-testid="analytics-dau"]');
    expect(dau?.querySelector('[data-day="2026-11-02"]')?.getAttribute('data-active')).toBe('5');
    expect(dau?.querySelectorAll('tbody tr')).toHaveLength(2);
    const funnel = container.querySelector('[data-testid="analytics-funnel"]');
    const counts = [...(funnel?.querySelectorAll('tr') ?? [])].map((r) => r.getAttribute('data-count'));
    expect(counts).toEqual(['6', '3', '1', '1']);
    expect(funnel?.textContent).toContain('50%');
    const heat = container.querySelector('[data-testid="analytics-retention"]');
    expect(heat?.textContent).toContain('100%');
    expect(heat?.textContent).toContain('50%');
    expect(container.querySelector('[data-testid="analytics-errors"]')?.textContent).toContain('boom (2)');

    const from = container.querySelector<HTMLInputElement>('[data-testid="analytics-from"]');
    expect(from).not.toBeNull();
    await act(async () => {
      const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
      setter?.call(from, '2026-10-01');
      from?.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await act(async () => {
      container.querySelector<HTMLButtonElement>('[data-testid="analytics-refresh"]')?.click();
      await new Promise((r) => setTimeout(r, 0));
    });
    const last = asked.filter((a) => a.path.endsWith('/dau')).at(-1);
    expect(last?.body.from).toBe('2026-10-01');
    act(() => root.unmount());
  });
});
