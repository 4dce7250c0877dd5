// The moderators' console paths (after the locale):
//   /moderation              the queue of reports and appeals
//   /moderation/audit        the audit log (operators)
//   /moderation/bans         account bans
//   /moderation/moderators   moderator grants (operators)
//   /moderation/filter       the text filter's lists (operators)

export const MODERATION_TABS = ['queue', 'audit', 'bans', 'moderators', 'filter'] as const;
export type ModerationTab = (typeof MODERATION_TABS)[number];

export const MODERATION_PATH = '/moderation';

/** The console tab a path shows, or null when it is not a console path. */
export function parseModerationPath(rest: string): ModerationTab | null {
  const path = rest.length > 1 && rest.endsWith('/') ? rest.slice(0, -1) : rest;
  if (path === MODERATION_PATH) return 'queue';
  if (!path.startsWith(`${MODERATION_PATH}/`)) return null;
  const tab = path.slice(MODERATION_PATH.length + 1);
  return (MODERATION_TABS as readonly string[]).includes(tab) && tab !== 'queue' ? (tab as ModerationTab) : null;
}

export function moderationPath(tab: ModerationTab): string {
  return tab === 'queue' ? MODERATION_PATH : `${MODERATION_PATH}/${tab}`;
}
