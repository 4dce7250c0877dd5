import { describe, expect, it } from 'vitest';
import {
  isOwnTask,
  leavesListWhenCancelled,
  acceptUpdate,
  applyFirstPage,
  applyNextPage,
  asTask,
  dayRange,
  EMPTY_LIST,
  filterChanged,
  idsToPoll,
  listRequest,
  matchesFilter,
  mergeTasks,
  NO_FILTER,
  removeTask,
  shouldPoll,
  trackId,
} from './model';
import { makeTask } from './testTask';

const push = { addUnknown: true };

describe('the progress rule', () => {
  it('ignores an update with lower progress, except 0 and 100', () => {
    const present = makeTask({ id: 'a', process: 50 });
    expect(acceptUpdate(present, makeTask({ id: 'a', process: 40 }))).toBe(false);
    expect(acceptUpdate(present, makeTask({ id: 'a', process: 50 }))).toBe(true);
    expect(acceptUpdate(present, makeTask({ id: 'a', process: 60 }))).toBe(true);
    expect(acceptUpdate(present, makeTask({ id: 'a', process: 0 }))).toBe(true);
    expect(acceptUpdate(present, makeTask({ id: 'a', process: 100, status: 3 }))).toBe(true);
    expect(acceptUpdate(undefined, makeTask({ id: 'a', process: 10 }))).toBe(true);
  });

  it('never takes a finished task back to running', () => {
    const done = makeTask({ id: 'a', process: 100, status: 3 });
    expect(acceptUpdate(done, makeTask({ id: 'a', process: 100, status: 2 }))).toBe(false);
    expect(acceptUpdate(done, makeTask({ id: 'a', process: 100, status: 3 }))).toBe(true);
  });
});

describe('merging pushes and polls', () => {
  it('keeps the newest first and drops stale progress', () => {
    let s = mergeTasks(EMPTY_LIST, [makeTask({ id: 'old', create_at: 1 }), makeTask({ id: 'new', create_at: 5 })], push).state;
    expect(s.order).toEqual(['new', 'old']);
    s = mergeTasks(s, [makeTask({ id: 'new', create_at: 5, process: 70 })], push).state;
    // A poll answer that was sent before the push arrives after it.
    s = mergeTasks(s, [makeTask({ id: 'new', create_at: 5, process: 30 })], { addUnknown: false }).state;
    expect(s.byId.new?.process).toBe(70);
  });

  it('reports tasks that succeed or fail with this merge, not ones already done', () => {
    const running = mergeTasks(EMPTY_LIST, [makeTask({ id: 'a' }), makeTask({ id: 'b' })], push).state;
    const { events, state } = mergeTasks(
      running,
      [makeTask({ id: 'a', status: 3, process: 100 }), makeTask({ id: 'b', status: 4, reason: 'engine down' })],
      push,
    );
    expect(events.succeeded.map((t) => t.id)).toEqual(['a']);
    expect(events.ended.map((t) => t.id)).toEqual(['b']);
    expect(mergeTasks(state, [makeTask({ id: 'a', status: 3, process: 100 })], push).events.succeeded).toEqual([]);
    const loaded = mergeTasks(EMPTY_LIST, [makeTask({ id: 'c', status: 3, process: 100 })], push);
    expect(loaded.events.succeeded).toEqual([]);
  });

  it('fills a tracked task and reports its success', () => {
    const tracked = trackId(EMPTY_LIST, 't');
    expect(tracked.order).toEqual(['t']);
    expect(trackId(tracked, 't')).toBe(tracked);
    const { state, events } = mergeTasks(tracked, [makeTask({ id: 't', status: 3, process: 100 })], { addUnknown: false });
    expect(state.byId.t?.status).toBe(3);
    expect(events.succeeded).toHaveLength(1);
  });

  it('ignores unknown tasks from polls and, for pushes, those outside the filter', () => {
    expect(mergeTasks(EMPTY_LIST, [makeTask({ id: 'x' })], { addUnknown: false }).state).toBe(EMPTY_LIST);
    const filter = { ...NO_FILTER, keyword: 'cat' };
    expect(mergeTasks(EMPTY_LIST, [makeTask({ id: 'x' })], { addUnknown: true, filter }).state.order).toEqual([]);
    expect(
      mergeTasks(EMPTY_LIST, [makeTask({ id: 'x', prompt: 'A Cat' })], { addUnknown: true, filter }).state.order,
    ).toEqual(['x']);
  });

  it('removes user-cancelled tasks and does not add them', () => {
    const s = mergeTasks(EMPTY_LIST, [makeTask({ id: 'a' }), makeTask({ id: 'b', create_at: 2 })], push).state;
    const cancelled = makeTask({ id: 'a', status: 4, status_desc: 'user cancelled' });
    const after = mergeTasks(s, [cancelled], push).state;
    expect(after.order).toEqual(['b']);
    expect(after.byId.a).toBeUndefined();
    expect(mergeTasks(EMPTY_LIST, [cancelled], push).state.order).toEqual([]);
    // Other endings stay, with their reason.
    const failed = mergeTasks(s, [makeTask({ id: 'a', status: 4, status_desc: 'failed', reason: 'x' })], push).state;
    expect(failed.order).toContain('a');
  });

  it('removes a deleted task', () => {
    const s = mergeTasks(EMPTY_LIST, [makeTask({ id: 'a' })], push).state;
    expect(removeTask(s, 'a').order).toEqual([]);
    expect(removeTask(s, 'zz')).toBe(s);
  });
});

describe('list pages', () => {
  it('a reload merges into what is shown; a filter change replaces it but keeps tracked tasks', () => {
    let s = applyFirstPage(EMPTY_LIST, { items: [makeTask({ id: 'a', create_at: 3 })], cursor: 'c1' }, false);
    expect(s).toMatchObject({ order: ['a'], cursor: 'c1', loaded: true });
    s = applyNextPage(s, { items: [makeTask({ id: 'b', create_at: 1 })], cursor: null });
    expect(s.order).toEqual(['a', 'b']);
    expect(s.cursor).toBeNull();
    s = trackId(s, 'new');
    const reloaded = applyFirstPage(s, { items: [makeTask({ id: 'a', create_at: 3, process: 90 })], cursor: 'c1' }, false);
    expect(reloaded.order).toEqual(['new', 'a', 'b']);
    expect(reloaded.cursor).toBeNull();
    const replaced = applyFirstPage(s, { items: [makeTask({ id: 'z', create_at: 9 })], cursor: null }, true);
    expect(replaced.order).toEqual(['new', 'z']);
  });
});

describe('polling', () => {
  const running = mergeTasks(EMPTY_LIST, [makeTask({ id: 'a', status: 1 }), makeTask({ id: 'b', status: 3 })], push).state;
  const done = mergeTasks(EMPTY_LIST, [makeTask({ id: 'b', status: 3 }), makeTask({ id: 'c', status: 4 })], push).state;

  it('polls queued, running and not-yet-known tasks only', () => {
    expect(idsToPoll(running)).toEqual(['a']);
    expect(idsToPoll(trackId(done, 't'))).toEqual(['t']);
    expect(idsToPoll(done)).toEqual([]);
  });

  it('is only the fallback of socket pushes, and only while needed', () => {
    expect(shouldPoll(running, 'online')).toBe(false);
    for (const s of ['offline', 'connecting', 'authenticating', 'reconnecting'] as const) {
      expect(shouldPoll(running, s)).toBe(true);
      expect(shouldPoll(done, s)).toBe(false);
    }
    expect(shouldPoll(EMPTY_LIST, 'offline')).toBe(false);
  });
});

describe('filters', () => {
  it('refetches only when the range or the keyword really changes', () => {
    expect(filterChanged(NO_FILTER, { ...NO_FILTER })).toBe(false);
    expect(filterChanged(NO_FILTER, { ...NO_FILTER, keyword: '  ' })).toBe(false);
    expect(filterChanged({ ...NO_FILTER, keyword: 'Fox' }, { ...NO_FILTER, keyword: 'fox ' })).toBe(false);
    expect(filterChanged(NO_FILTER, { ...NO_FILTER, keyword: 'fox' })).toBe(true);
    expect(filterChanged(NO_FILTER, { ...NO_FILTER, timeFrom: 5 })).toBe(true);
    expect(filterChanged({ ...NO_FILTER, timeTo: 5 }, { ...NO_FILTER, timeTo: 5 })).toBe(false);
  });

  it('builds the list request', () => {
    expect(listRequest(NO_FILTER)).toEqual({ limit: 20 });
    expect(listRequest({ timeFrom: 1, timeTo: 2, keyword: ' fox ' }, 'cur')).toEqual({
      limit: 20,
      time_from: 1,
      time_to: 2,
      keyword: 'fox',
      cursor: 'cur',
    });
  });

  it('turns dates into an inclusive local-day range', () => {
    const r = dayRange('2024-03-01', '2024-03-02');
    expect(r.timeFrom).toBe(new Date(2024, 2, 1).getTime());
    expect(r.timeTo).toBe(new Date(2024, 2, 3).getTime() - 1);
    expect(dayRange('', 'nope')).toEqual({ timeFrom: null, timeTo: null });
  });

  it('matches pushed tasks like the server does', () => {
    const t = makeTask({ id: 'a', create_at: 100, prompt: 'A red Fox' });
    expect(matchesFilter(t, NO_FILTER)).toBe(true);
    expect(matchesFilter(t, { timeFrom: 100, timeTo: 100, keyword: 'fox' })).toBe(true);
    expect(matchesFilter(t, { timeFrom: 101, timeTo: null, keyword: '' })).toBe(false);
    expect(matchesFilter(t, { timeFrom: null, timeTo: 99, keyword: '' })).toBe(false);
    expect(matchesFilter(t, { timeFrom: null, timeTo: null, keyword: 'cat' })).toBe(false);
  });
});

describe('asTask', () => {
  it('accepts objects with an id, status and progress, and fills the rest', () => {
    expect(asTask({ id: 'a', status: 2, process: 5 })).toMatchObject({ id: 'a', img_uris: [], engine: null });
    expect(asTask({ id: 'a', status: 2 })).toBeNull();
    expect(asTask('x')).toBeNull();
  });
});

describe('isOwnTask', () => {
  it('tells the user’s own tasks from other channel members’', () => {
    expect(isOwnTask({ account_id: 'me' }, 'me')).toBe(true);
    expect(isOwnTask({ account_id: 'other' }, 'me')).toBe(false);
    expect(isOwnTask({ account_id: null }, 'me')).toBe(true);
    expect(isOwnTask({}, 'me')).toBe(true);
    expect(isOwnTask(undefined, 'me')).toBe(true);
    expect(isOwnTask({ account_id: 'other' }, null)).toBe(true);
  });
});

describe('leavesListWhenCancelled', () => {
  it('keeps a user-cancelled task of a PRIVATE channel (spec 1 §4)', () => {
    expect(leavesListWhenCancelled({ status_desc: 'user cancelled' })).toBe(true);
    expect(leavesListWhenCancelled({ status_desc: 'user cancelled', channel_private: true })).toBe(false);
    expect(leavesListWhenCancelled({ status_desc: 'failed', channel_private: false })).toBe(false);
  });
});
