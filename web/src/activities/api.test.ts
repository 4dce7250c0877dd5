import { describe, expect, it, vi } from 'vitest';
import { ActivitiesApi } from './api';

function client(answer: unknown = { items: [], next_cursor: null }) {
  const post = vi.fn<(path: string, body?: unknown) => Promise<unknown>>(async () => answer);
  return { post, api: new ActivitiesApi({ post: post as never }) };
}

describe('ActivitiesApi: the calls of ACT_API.md', () => {
  it('lists by status with a cursor', async () => {
    const { post, api } = client({ items: [{ id: 'a' }], next_cursor: '20' });
    expect(await api.list('live', null)).toEqual({ items: [{ id: 'a' }], next_cursor: '20' });
    await api.list('ended', '20', 10);
    expect(post.mock.calls).toEqual([
      ['/api/v1/theme-activity/list', { status: 'live', page_size: 20 }],
      ['/api/v1/theme-activity/list', { status: 'ended', page_size: 10, cursor: '20' }],
    ]);
  });

  it('reads a period’s contributions and answers the period', async () => {
    const { post, api } = client({ items: [], next_cursor: '', period: 2 });
    expect(await api.posts('a', 2, 'top')).toEqual({ items: [], next_cursor: null, period: 2 });
    await api.posts('a', null, 'new', 'c');
    expect(post.mock.calls).toEqual([
      ['/api/v1/theme-activity/post-list', { id: 'a', sort: 'top', page_size: 20, period: 2 }],
      ['/api/v1/theme-activity/post-list', { id: 'a', sort: 'new', page_size: 20, cursor: 'c' }],
    ]);
  });

  it('commits works through activity/commit and characters through character-join', async () => {
    const { post, api } = client({});
    await api.commit('work', 'w1', 'a');
    await api.commit('article', 'w2', null);
    await api.commit('character', 'c1', 'a');
    expect(post.mock.calls).toEqual([
      ['/api/v1/activity/commit', { type: 'work', obj_id: 'w1', activity_id: 'a' }],
      ['/api/v1/activity/commit', { type: 'article', obj_id: 'w2' }],
      ['/api/v1/theme-activity/character-join', { id: 'a', character_id: 'c1' }],
    ]);
  });

  it('votes and cancels; excellent lists; my contributions', async () => {
    const { post, api } = client({ items: [{ period: 0, winners: [] }] });
    await api.vote('e', true);
    await api.vote('e', false);
    expect(await api.excellent('a')).toEqual([{ period: 0, winners: [] }]);
    await api.excellent('a', 1);
    await api.myApply('a');
    await api.myApply(null, 'c', 5);
    expect(post.mock.calls).toEqual([
      ['/api/v1/activity/vote', { entry_id: 'e' }],
      ['/api/v1/activity/vote-cancel', { entry_id: 'e' }],
      ['/api/v1/theme-activity/period-excellent-list', { id: 'a' }],
      ['/api/v1/theme-activity/period-excellent-list', { id: 'a', period: 1 }],
      ['/api/v1/activity/my-apply', { page_size: 20, activity_id: 'a' }],
      ['/api/v1/activity/my-apply', { page_size: 5, cursor: 'c' }],
    ]);
  });

  it('operators: create, edit, close, judge with and without picks', async () => {
    const { post, api } = client({});
    const draft = { title: 'T', rules: '', cover: '', periods: [{ start: 1, end: 2 }], types: ['work' as const], prizes: [5], judging: 'votes' as const, daily: false, max_entries: 3, excellent_count: 1 };
    await api.save(draft, null);
    await api.save({ ...draft, cover: '/files/c.png' }, 'a');
    await api.close('a', 0);
    await api.judge('a', 0, null);
    await api.judge('a', 1, ['e2', 'e1']);
    expect(post.mock.calls).toEqual([
      ['/api/v1/admin/activity/create', { ...draft, cover: null }],
      ['/api/v1/admin/activity/edit', { id: 'a', ...draft, cover: '/files/c.png' }],
      ['/api/v1/admin/activity/close', { id: 'a', period: 0 }],
      ['/api/v1/admin/activity/judge', { id: 'a', period: 0 }],
      ['/api/v1/admin/activity/judge', { id: 'a', period: 1, picks: ['e2', 'e1'] }],
    ]);
  });

  it('reads a malformed list as empty', async () => {
    const { api } = client(null);
    expect(await api.list('all')).toEqual({ items: [], next_cursor: null });
    expect(await api.adminList()).toEqual([]);
  });
});
