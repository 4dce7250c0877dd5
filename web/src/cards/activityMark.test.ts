import { describe, expect, it } from 'vitest';
import { activityBadge } from './activityMark';

describe('the activity badge on a content card (spec 1 §3)', () => {
  it('a work card with an activity mark', () => {
    expect(activityBadge({ obj_type: 4, id: 'w', activity_mark: { id: 'event-center/019a/1', obj_type: 61, title: 'Autumn' } })).toEqual({
      kind: 'activity',
      item: { obj_type: 61, id: 'event-center/019a/1' },
      title: 'Autumn',
    });
  });

  it('a work card in the daily challenge', () => {
    expect(activityBadge({ obj_type: 4, id: 'w', activity_mark: { id: 'event-center/daily/019a', obj_type: 61, title: 'Moon' } })?.kind).toBe('daily');
  });

  it('an activity card itself (obj_type 61)', () => {
    expect(activityBadge({ obj_type: 61, id: 'event-center/daily/7', title: 'Today' })).toMatchObject({ kind: 'daily', title: 'Today' });
    expect(activityBadge({ obj_type: 61, id: 'event-center/7/0' })).toMatchObject({ kind: 'activity', title: '' });
  });

  it('nothing without a mark, or with a mark that is neither', () => {
    expect(activityBadge({ obj_type: 4, id: 'w' })).toBeNull();
    expect(activityBadge({ obj_type: 4, id: 'w', activity_mark: null })).toBeNull();
    expect(activityBadge({ obj_type: 4, id: 'w', activity_mark: { id: 'event-center/tasks', obj_type: 61 } })).toBeNull();
    expect(activityBadge({ obj_type: 4, id: 'w', activity_mark: { id: 'event-center/a/b', obj_type: 1 } })).toBeNull();
    expect(activityBadge({ obj_type: 61, id: 'https://example.com/x' })).toBeNull();
  });
});
