// The settings paths (after the locale): `/settings` (the profile tab) and
// `/settings/{tab}`.

export const SETTINGS_TABS = ['profile', 'security', 'notifications', 'account'] as const;
export type SettingsTab = (typeof SETTINGS_TABS)[number];

export const SETTINGS_PATH = '/settings';

/** The tab a path shows, or null when it is not a settings path. */
export function parseSettingsPath(rest: string): SettingsTab | null {
  const path = rest.length > 1 && rest.endsWith('/') ? rest.slice(0, -1) : rest;
  if (path === SETTINGS_PATH) return 'profile';
  if (!path.startsWith(`${SETTINGS_PATH}/`)) return null;
  const tab = path.slice(SETTINGS_PATH.length + 1);
  return (SETTINGS_TABS as readonly string[]).includes(tab) ? (tab as SettingsTab) : null;
}

export function settingsPath(tab: SettingsTab): string {
  return tab === 'profile' ? SETTINGS_PATH : `${SETTINGS_PATH}/${tab}`;
}
