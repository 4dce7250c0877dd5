// The activities' paths (after the locale):
//   /activities                          the list (live, upcoming, ended)
//   /activities/{id}                     an activity's page
//   /event-center/daily/{id}             the daily challenge's card link (spec 1 §3): its activity's page
//   /event-center/{id}/{period}          a task/activity mark's card link: the activity's page at that period

export const ACTIVITIES_PATH = '/activities';

export type ActivitiesRoute = { view: 'list' } | { view: 'detail'; id: string; period: number | null };

function decode(part: string | undefined): string | null {
  if (part === undefined) return null;
  try {
    const s = decodeURIComponent(part);
    return s.trim() === '' ? null : s;
  } catch {
    return null;
  }
}

/** The activities route of `rest` (the path after the locale), or null. */
export function parseActivitiesPath(rest: string): ActivitiesRoute | null {
  const path = rest.length > 1 && rest.endsWith('/') ? rest.slice(0, -1) : rest;
  if (path === ACTIVITIES_PATH) return { view: 'list' };
  const parts = path.split('/').slice(1);
  const [head, a, b] = parts;
  if (head === 'activities' && parts.length === 2) {
    const id = decode(a);
    return id === null ? null : { view: 'detail', id, period: null };
  }
  if (head === 'event-center' && parts.length === 3) {
    if (a === 'daily') {
      const id = decode(b);
      return id === null ? null : { view: 'detail', id, period: null };
    }
    const id = decode(a);
    const period = b !== undefined && /^\d{1,6}$/.test(b) ? Number(b) : null;
    return id === null || period === null ? null : { view: 'detail', id, period };
  }
  return null;
}

/** The path (without the locale) of an activity's page. */
export function activityPath(id: string): string {
  return `${ACTIVITIES_PATH}/${encodeURIComponent(id)}`;
}
