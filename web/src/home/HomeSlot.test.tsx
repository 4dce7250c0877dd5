// A slot against a mocked API: it asks for its own name, shows the live
// slot's banners and its modules' elements (theme activities as the
// activities page's tiles linking to the activity's page, works as links to
// the work), and nothing at all when the slot is empty.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { appStore, Provider } from '../state/jotai';
import type { ActivitySummary } from '../activities/types';
import { homeApi } from './api';
import { activityOf, HomeSlot } from './HomeSlot';
import type { ElementView } from './types';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;
const NOW = Date.now();
const H = 3_600_000;

const activity: ActivitySummary = {
  id: 'a1', title: 'Autumn colours', cover: { url: '/files/a1.png' }, status: 'live', daily: false, judging: 'votes', types: ['work'], prizes: [100],
  periods: [{ index: 0, start: NOW - H, end: NOW + H, status: 'live' }], current_period: 0, start: NOW - H, end: NOW + H, card_id: '', obj_type: 61, entries: 2, max_entries: 1, create_at: 0,
};

const elements: ElementView[] = [
  { kind: 'activity', id: 'a1', card: activity as unknown as ElementView['card'] },
  { kind: 'work', id: 'w2', card: { title: 'A lake', cover_url: '/files/w2.png' } },
];

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
  vi.restoreAllMocks();
});

describe('HomeSlot', () => {
  it('renders its live banners and modules, activities as tiles', async () => {
    const slots = vi.spyOn(homeApi, 'slots').mockResolvedValue({
      slots: [
        {
          name: 'generator-side',
          banners: [{ id: 'bn1', slot: 'generator-side', image: '/files/b.png', title: 'Try video', link: '/en/video' }],
          modules: [{ id: 'md1', slot: 'generator-side', title: 'Challenges', link: '', source: 'ids', count: 2 }],
        },
      ],
    });
    const content = vi.spyOn(homeApi, 'moduleElements').mockResolvedValue({ module_id: 'md1', elements, next_cursor: null });
    act(() => root.render(<Provider store={appStore}><HomeSlot name="generator-side" /></Provider>));
    await flush();
    expect(slots).toHaveBeenCalledWith('en', 'generator-side');
    expect(content).toHaveBeenCalledWith('md1', 'en');
    const slot = q('[data-testid="home-slot-generator-side"]');
    expect(slot?.querySelector('[data-testid="home-banner"] img')?.getAttribute('alt')).toBe('Try video');
    const tile = slot?.querySelector<HTMLElement>('[data-testid="activity-tile"]');
    expect(tile?.dataset.id).toBe('a1');
    expect(tile?.dataset.status).toBe('live');
    expect(tile?.querySelector('.act-tile__title')?.getAttribute('href')).toBe('/en/activities/a1');
    const work = [...(slot?.querySelectorAll('.home-module__list a') ?? [])].find((a) => a.textContent === 'A lake');
    expect(work?.getAttribute('href')).toBe('/en/work/w2');
  });

  it('shows nothing for an empty slot', async () => {
    vi.spyOn(homeApi, 'slots').mockResolvedValue({ slots: [] });
    act(() => root.render(<Provider store={appStore}><HomeSlot name="home-modules" /></Provider>));
    await flush();
    expect(container.innerHTML).toBe('');
  });

  it('reads an activity card only from an activity element', () => {
    expect(activityOf(elements[0]!)?.title).toBe('Autumn colours');
    expect(activityOf(elements[1]!)).toBeNull();
    expect(activityOf({ kind: 'activity', id: 'x', card: { title: 'no periods' } })).toBeNull();
  });
});
