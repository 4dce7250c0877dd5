import { describe, expect, it } from 'vitest';
import { parseSettingsPath, settingsPath } from './route';

describe('settings paths', () => {
  it('reads tabs', () => {
    expect(parseSettingsPath('/settings')).toBe('profile');
    expect(parseSettingsPath('/settings/')).toBe('profile');
    expect(parseSettingsPath('/settings/security')).toBe('security');
    expect(parseSettingsPath('/settings/nope')).toBeNull();
    expect(parseSettingsPath('/settingsx')).toBeNull();
  });
  it('builds paths', () => {
    expect(settingsPath('profile')).toBe('/settings');
    expect(settingsPath('notifications')).toBe('/settings/notifications');
  });
});
