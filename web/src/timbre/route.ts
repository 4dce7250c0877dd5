// The voice (timbre) pages' paths (after the locale):
//   /timbre            the public voices, with the ai-audio filters
//   /timbre/rec        recommended voices
//   /timbre/my         my voices (any state)
//   /timbre/new        create a voice on a stock base voice
//   /timbre/{id}       a voice: preview, try it, edit, train, delete

export type TimbreRoute = { view: 'list' } | { view: 'rec' } | { view: 'my' } | { view: 'new' } | { view: 'detail'; id: string };

export const TIMBRE_PATH = '/timbre';

export function parseTimbrePath(rest: string): TimbreRoute | null {
  const path = rest.length > 1 && rest.endsWith('/') ? rest.slice(0, -1) : rest;
  if (path === TIMBRE_PATH) return { view: 'list' };
  if (!path.startsWith(`${TIMBRE_PATH}/`)) return null;
  const parts = path.slice(TIMBRE_PATH.length + 1).split('/');
  if (parts.length !== 1) return null;
  const head = parts[0] ?? '';
  if (head === 'rec' || head === 'my' || head === 'new') return { view: head };
  let id: string;
  try {
    id = decodeURIComponent(head);
  } catch {
    return null;
  }
  return id === '' ? null : { view: 'detail', id };
}

export function timbrePath(route: TimbreRoute): string {
  return route.view === 'list' ? TIMBRE_PATH : route.view === 'detail' ? `${TIMBRE_PATH}/${encodeURIComponent(route.id)}` : `${TIMBRE_PATH}/${route.view}`;
}
