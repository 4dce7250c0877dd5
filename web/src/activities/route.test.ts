import { describe, expect, it } from 'vitest';
import { cardLink } from '../cards/cardLink';
import { activityPath, parseActivitiesPath } from './route';

describe('activities routes', () => {
  it.each([
    ['/activities', { view: 'list' }],
    ['/activities/', { view: 'list' }],
    ['/activities/a%20b', { view: 'detail', id: 'a b', period: null }],
    ['/event-center/daily/019a', { view: 'detail', id: '019a', period: null }],
    ['/event-center/019a/2', { view: 'detail', id: '019a', period: 2 }],
  ])('%s', (path, route) => {
    expect(parseActivitiesPath(path)).toEqual(route);
  });

  it.each(['/activity', '/activities/a/b', '/event-center/019a', '/event-center/019a/x', '/event-center/daily/', '/activities/%E0%A4%A', '/event-center/tasks/a/b'])('%s is not one', (path) => {
    expect(parseActivitiesPath(path)).toBeNull();
  });

  it('round-trips an activity path', () => {
    const path = activityPath('id/with space');
    expect(path).toBe('/activities/id%2Fwith%20space');
    expect(parseActivitiesPath(path)).toEqual({ view: 'detail', id: 'id/with space', period: null });
  });

  it('the card links of marks land on the activity page', () => {
    for (const id of ['event-center/daily/019a', 'event-center/019a/0']) {
      const target = cardLink({ obj_type: 61, id });
      expect(target.kind).toBe('path');
      if (target.kind === 'path') expect(parseActivitiesPath(target.path)).toMatchObject({ view: 'detail', id: '019a' });
    }
  });
});
