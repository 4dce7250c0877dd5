// The square's paths (after the locale):
//   /                         the home square (query `tag` narrows it to a tag)
//   /artWorkDetail/{id}       a picture or video post (spec 1 §2)
//   /articleDetail/{id}       an article (spec 1 §2)
//   /user/{id}[/{tab}]        a profile; tab works | likes | collections | followers | following
//   /search                   search (query `q`, `kind`)

export const PROFILE_TABS = ['works', 'likes', 'collections', 'followers', 'following'] as const;
export type ProfileTab = (typeof PROFILE_TABS)[number];

export type SquareRoute =
  | { view: 'work'; id: string; article: boolean }
  | { view: 'profile'; id: string; tab: ProfileTab }
  | { view: 'search' };

function decode(part: string | undefined): string | null {
  if (part === undefined) return null;
  try {
    const s = decodeURIComponent(part);
    return s === '' ? null : s;
  } catch {
    return null;
  }
}

/** The square route of `rest` (the path after the locale), or null. */
export function parseSquarePath(rest: string): SquareRoute | null {
  const path = rest.length > 1 && rest.endsWith('/') ? rest.slice(0, -1) : rest;
  if (path === '/search') return { view: 'search' };
  const parts = path.split('/').slice(1);
  const [head, a, b] = parts;
  if ((head === 'artWorkDetail' || head === 'articleDetail') && parts.length === 2) {
    const id = decode(a);
    return id === null ? null : { view: 'work', id, article: head === 'articleDetail' };
  }
  if (head === 'user' && (parts.length === 2 || parts.length === 3)) {
    const id = decode(a);
    if (id === null) return null;
    if (b === undefined) return { view: 'profile', id, tab: 'works' };
    return (PROFILE_TABS as readonly string[]).includes(b) ? { view: 'profile', id, tab: b as ProfileTab } : null;
  }
  return null;
}

/** The path (without the locale) of a work's page. */
export function workPath(id: string, article = false): string {
  return `/${article ? 'articleDetail' : 'artWorkDetail'}/${encodeURIComponent(id)}`;
}

/** The path (without the locale) of a profile tab. */
export function profilePath(id: string, tab: ProfileTab = 'works'): string {
  const base = `/user/${encodeURIComponent(id)}`;
  return tab === 'works' ? base : `${base}/${tab}`;
}

/** The path (without the locale) of a search. */
export function searchPath(q: string, kind: string = 'all'): string {
  const query = new URLSearchParams();
  if (q.trim() !== '') query.set('q', q.trim());
  if (kind !== 'all') query.set('kind', kind);
  const qs = query.toString();
  return qs === '' ? '/search' : `/search?${qs}`;
}

/** The home square narrowed to a tag. */
export function tagPath(tag: string): string {
  return `/?${new URLSearchParams({ tag }).toString()}`;
}
