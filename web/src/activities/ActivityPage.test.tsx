// An activity's page against a mocked API: the rules (the server's HTML),
// the countdown, contributions with a vote button on others' entries only,
// a vote's answer shown, the excellent list with prizes, and the Join flow
// offering only the allowed types of my public posts.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { accountAtom, tokenAtom } from '../account/atoms';
import { squareApi } from '../square/actions';
import type { Card } from '../square/types';
import { appStore, Provider } from '../state/jotai';
import { activitiesApi } from './actions';
import { ActivityPage } from './ActivityPage';
import type { ActivityDetail, Entry } from './types';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;
const NOW = Date.now();
const H = 3_600_000;

const activity: ActivityDetail = {
  id: 'act1', title: 'Autumn', cover: null, status: 'live', daily: false, judging: 'votes', types: ['work'], prizes: [500, 200],
  periods: [
    { index: 0, start: NOW - 48 * H, end: NOW - 24 * H, status: 'judged' },
    { index: 1, start: NOW - 24 * H, end: NOW + 2 * H, status: 'live' },
  ],
  current_period: 1, start: NOW - 48 * H, end: NOW + 2 * H, card_id: 'event-center/act1/1', obj_type: 61, entries: 2, max_entries: 2, create_at: 0,
  rules_html: '<p>Paint <strong>autumn</strong>.</p>', joined: false, my_entries: 0,
};

function entry(id: string, author: string, extra: Partial<Entry> = {}): Entry {
  return {
    entry_id: `act1:work:${id}`, activity_id: 'act1', period: 1, type: 'work', obj_id: id, obj_type: 4, title: `Work ${id}`, cover: { url: `/files/${id}.png` },
    author: { id: author, name: author }, votes: 1, voted: false, create_at: 0, status: 'entered', rank: null, prize: null, card: null, ...extra,
  };
}

function post(id: string, kind: string): Card {
  return { obj_type: 4, content_sub_type: kind, id, title: `Post ${id}`, cover: { url: '', width: 0, height: 0 }, image_count: 1, author: { id: 'me', name: 'Me' }, tags: [], nsfw: false, likes: 0, collects: 0, comments: 0, views: 0, liked: false, collected: false, create_at: 0 } as Card;
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
  appStore.set(tokenAtom, 'tok');
  appStore.set(accountAtom, { id: 'me', name: 'Me', email: 'me@example.com', create_at: 1, status: 1 });
  vi.spyOn(activitiesApi, 'detail').mockResolvedValue(activity);
  vi.spyOn(activitiesApi, 'myApply').mockResolvedValue({ items: [entry('w1', 'me')], next_cursor: null });
  vi.spyOn(activitiesApi, 'posts').mockResolvedValue({ items: [entry('w1', 'me'), entry('w2', 'ann')], next_cursor: null, period: 1 });
  vi.spyOn(activitiesApi, 'excellent').mockResolvedValue([
    { period: 0, start: NOW - 48 * H, end: NOW - 24 * H, status: 'judged', judged_at: NOW - 23 * H, judging: 'votes', winners: [{ rank: 1, prize: 500, entry: entry('w0', 'bob', { period: 0, votes: 9 }) }] },
  ]);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
  appStore.set(tokenAtom, null);
  appStore.set(accountAtom, null);
  vi.restoreAllMocks();
});

describe('ActivityPage', () => {
  it('shows the rules, the countdown, contributions and the excellent list', async () => {
    act(() => root.render(<Provider store={appStore}><ActivityPage id="act1" period={null} /></Provider>));
    await flush();
    expect(q('[data-testid="activity-rules"] strong')?.textContent).toBe('autumn');
    expect(q('[data-testid="activity-countdown"]')?.textContent).toMatch(/^Ends in 0[12]:\d\d:\d\d$/);
    expect(activitiesApi.posts).toHaveBeenCalledWith('act1', 1, 'new', null);
    // A vote button on Ann's entry, none on mine.
    expect(q('[data-entry="act1:work:w2"] [data-testid="vote-button"]')).not.toBeNull();
    expect(q('[data-entry="act1:work:w1"] [data-testid="vote-button"]')).toBeNull();
    expect(q('[data-testid="my-apply-entry"]')?.dataset.status).toBe('entered');
    const winner = q('[data-testid="excellent-winner"]');
    expect(winner?.dataset.obj).toBe('w0');
    expect(winner?.textContent).toBe('#1: 500 credits');
    // One of my two entries used: I may still join.
    expect((q('[data-testid="activity-join"]') as HTMLButtonElement).disabled).toBe(false);
  });

  it('shows a vote’s answer on the entry', async () => {
    vi.spyOn(activitiesApi, 'vote').mockResolvedValue({ entry_id: 'act1:work:w2', votes: 2, voted: true });
    act(() => root.render(<Provider store={appStore}><ActivityPage id="act1" period={null} /></Provider>));
    await flush();
    await act(async () => q('[data-entry="act1:work:w2"] [data-testid="vote-button"]')?.click());
    await flush();
    expect(activitiesApi.vote).toHaveBeenCalledWith('act1:work:w2', true);
    const button = q('[data-entry="act1:work:w2"] [data-testid="vote-button"]');
    expect(button?.getAttribute('aria-pressed')).toBe('true');
    expect(q('[data-entry="act1:work:w2"] [data-testid="vote-count"]')?.textContent).toBe('2');
  });

  it('joins with one of my public pictures (articles and videos not offered)', async () => {
    const feed = vi.spyOn(squareApi, 'feed').mockResolvedValue({ items: [post('p9', 'picture'), post('a9', 'article'), post('v9', 'video')], next_cursor: null });
    vi.spyOn(activitiesApi, 'commit').mockResolvedValue({ entry_id: 'act1:work:p9', activity_id: 'act1', period: 1, status: 'entered' });
    act(() => root.render(<Provider store={appStore}><ActivityPage id="act1" period={null} /></Provider>));
    await flush();
    await act(async () => q('[data-testid="activity-join"]')?.click());
    await flush();
    expect(feed).toHaveBeenCalledWith('profileWorks', { account_id: 'me', page_size: 40 });
    const offered = [...container.querySelectorAll<HTMLElement>('[data-testid="join-candidate"]')].map((x) => x.dataset.obj);
    expect(offered).toEqual(['p9']);
    act(() => q('[data-testid="join-candidate"]')?.click());
    await act(async () => q('[data-testid="join-submit"]')?.click());
    await flush();
    expect(activitiesApi.commit).toHaveBeenCalledWith('work', 'p9', 'act1');
    expect(q('[data-testid="join-dialog"]')).toBeNull();
    expect(q('[data-testid="join-done"]')?.textContent).toBe('Contributed to period 2.');
  });

  it('at the limit of entries, Join is off', async () => {
    vi.spyOn(activitiesApi, 'myApply').mockResolvedValue({ items: [entry('w1', 'me'), entry('w3', 'me')], next_cursor: null });
    act(() => root.render(<Provider store={appStore}><ActivityPage id="act1" period={null} /></Provider>));
    await flush();
    expect((q('[data-testid="activity-join"]') as HTMLButtonElement).disabled).toBe(true);
    expect(container.textContent).toContain('You have made your 2 contributions for this period.');
  });
});
