// The list page against a mocked API: live first, a tab per status (and
// "Joined" only when signed in), each tile with its status, countdown,
// prizes and types.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenAtom } from '../account/atoms';
import { appStore, Provider } from '../state/jotai';
import { activitiesApi } from './actions';
import { ActivitiesPage } from './ActivitiesPage';
import type { ActivitySummary } from './types';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;
const NOW = Date.now();
const H = 3_600_000;

function summary(id: string, start: number, end: number): ActivitySummary {
  return {
    id, title: `Activity ${id}`, cover: null, status: 'live', daily: id === 'd', judging: 'votes', types: ['work', 'article'], prizes: [100],
    periods: [{ index: 0, start, end, status: 'live' }], current_period: 0, start, end, card_id: '', obj_type: 61, entries: 4, max_entries: 1, create_at: 0,
  };
}

async function flush() {
  await act(async () => {
    for (let i = 0; i < 8; i++) await Promise.resolve();
  });
}

const q = (sel: string) => container.querySelector<HTMLElement>(sel);

beforeEach(() => {
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
  appStore.set(tokenAtom, null);
  vi.restoreAllMocks();
});

describe('ActivitiesPage', () => {
  it('lists live activities first and switches by status', async () => {
    const list = vi.spyOn(activitiesApi, 'list').mockImplementation(async (status) =>
      status === 'live' ? { items: [summary('a', NOW - H, NOW + 26 * H), summary('d', NOW - H, NOW + H)], next_cursor: null } : { items: [], next_cursor: null },
    );
    act(() => root.render(<Provider store={appStore}><ActivitiesPage /></Provider>));
    await flush();
    expect(list).toHaveBeenCalledWith('live', null);
    expect(q('[data-testid="activities-tab-mine"]')).toBeNull();
    const tile = q('[data-testid="activity-tile"][data-id="a"]');
    expect(tile?.dataset.status).toBe('live');
    expect(tile?.querySelector('[data-testid="activity-countdown"]')?.textContent).toMatch(/^Ends in 1d \d\d:\d\d:\d\d$/);
    expect(tile?.textContent).toContain('#1: 100 credits');
    expect(tile?.textContent).toContain('Picture');
    expect(tile?.textContent).toContain('Article');
    expect(q('[data-testid="activity-tile"][data-id="d"]')?.textContent).toContain('Daily challenge');
    await act(async () => q('[data-testid="activities-tab-ended"]')?.click());
    await flush();
    expect(list).toHaveBeenLastCalledWith('ended', null);
    expect(q('[data-testid="activities-empty"]')?.textContent).toBe('No activity has ended yet.');
  });

  it('offers "Joined" when signed in', async () => {
    appStore.set(tokenAtom, 'tok');
    vi.spyOn(activitiesApi, 'list').mockResolvedValue({ items: [], next_cursor: null });
    const mine = vi.spyOn(activitiesApi, 'myList').mockResolvedValue({ items: [{ ...summary('m', NOW - H, NOW + H), my_entries: 2 }], next_cursor: null });
    act(() => root.render(<Provider store={appStore}><ActivitiesPage /></Provider>));
    await flush();
    await act(async () => q('[data-testid="activities-tab-mine"]')?.click());
    await flush();
    expect(mine).toHaveBeenCalledWith(null);
    expect(q('[data-testid="activity-tile"][data-id="m"]')?.textContent).toContain('mine: 2');
  });
});
