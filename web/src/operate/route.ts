// The operators' console paths (after the locale): `/operate` (the first tab)
// and `/operate/{tab}` for a tab of the registry in `tabs.ts`.

export const OPERATE_PATH = '/operate';

/** The tab id a path names ('' for the bare console), or null when it is not a console path. */
export function parseOperatePath(rest: string): string | null {
  const path = rest.length > 1 && rest.endsWith('/') ? rest.slice(0, -1) : rest;
  if (path === OPERATE_PATH) return '';
  if (!path.startsWith(`${OPERATE_PATH}/`)) return null;
  const tab = path.slice(OPERATE_PATH.length + 1);
  return /^[a-z][a-z0-9-]*$/.test(tab) ? tab : null;
}

export function operatePath(tab: string): string {
  return tab === '' ? OPERATE_PATH : `${OPERATE_PATH}/${tab}`;
}
