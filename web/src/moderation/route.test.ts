import { describe, expect, it } from 'vitest';
import { moderationPath, parseModerationPath } from './route';

describe('console paths', () => {
  it('reads each tab and writes it back', () => {
    expect(parseModerationPath('/moderation')).toBe('queue');
    expect(parseModerationPath('/moderation/')).toBe('queue');
    for (const tab of ['audit', 'bans', 'moderators', 'filter'] as const) {
      expect(parseModerationPath(moderationPath(tab))).toBe(tab);
    }
    expect(moderationPath('queue')).toBe('/moderation');
  });

  it('is null for other paths', () => {
    expect(parseModerationPath('/moderation/queue')).toBeNull();
    expect(parseModerationPath('/moderation/nope')).toBeNull();
    expect(parseModerationPath('/moderationx')).toBeNull();
    expect(parseModerationPath('/models')).toBeNull();
  });
});
