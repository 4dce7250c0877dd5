import { describe, expect, it } from 'vitest';
import { DEFAULT_FILTERS, feedRequest, hasFilter, isFiltered, toggleOutput } from './filters';

describe('filter bar per page key (spec 3 §2)', () => {
  it('home shows preference, time range and resource type', () => {
    expect(hasFilter('home', 'preference')).toBe(true);
    expect(hasFilter('home', 'timeType')).toBe(true);
    expect(hasFilter('home', 'resourceType')).toBe(true);
    expect(hasFilter('home', 'postType')).toBe(false);
  });

  it('makes the feed request, leaving defaults out', () => {
    expect(feedRequest('home', DEFAULT_FILTERS)).toEqual({ order_by: 'recommend' });
    expect(
      feedRequest('home', { order_by: 'hot', time_type: 'week', output_types: ['video', 'picture'], tag: ' cat ' }, 'c9'),
    ).toEqual({ order_by: 'hot', time_type: 'week', output_types: ['picture', 'video'], tag: 'cat', cursor: 'c9' });
  });

  it('toggles post kinds; all three is none', () => {
    let f = toggleOutput(DEFAULT_FILTERS, 'picture');
    expect(f.output_types).toEqual(['picture']);
    expect(isFiltered(f)).toBe(true);
    f = toggleOutput(toggleOutput(f, 'article'), 'video');
    expect(f.output_types).toEqual([]);
    expect(toggleOutput(toggleOutput(DEFAULT_FILTERS, 'article'), 'article').output_types).toEqual([]);
    expect(isFiltered(DEFAULT_FILTERS)).toBe(false);
  });
});
