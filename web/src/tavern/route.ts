// The tavern's paths (after the locale):
//   /tavern                          the character cards grid
//   /tavern/mine                     my characters (drafts too), card import
//   /tavern/new                      the create form
//   /tavern/character/{id}           a character's detail
//   /tavern/character/{id}/edit      the edit form
//   /tavern/chat/{characterId}[/{sessionId}]   the chat view

export type TavernRoute =
  | { view: 'browse' }
  | { view: 'mine' }
  | { view: 'new' }
  | { view: 'detail'; id: string }
  | { view: 'edit'; id: string }
  | { view: 'chat'; characterId: string; sessionId: string | null };

function decode(part: string): string | null {
  try {
    const s = decodeURIComponent(part);
    return s === '' ? null : s;
  } catch {
    return null;
  }
}

/** The tavern route of `rest`, or null when the path is not the tavern's. */
export function parseTavernPath(rest: string): TavernRoute | null {
  const path = rest.length > 1 && rest.endsWith('/') ? rest.slice(0, -1) : rest;
  if (path === '/tavern') return { view: 'browse' };
  if (!path.startsWith('/tavern/')) return null;
  const parts = path.slice('/tavern/'.length).split('/');
  const [head, a, b, extra] = parts;
  if (parts.length === 1 && head === 'mine') return { view: 'mine' };
  if (parts.length === 1 && head === 'new') return { view: 'new' };
  if (head === 'character' && a !== undefined) {
    const id = decode(a);
    if (id === null) return null;
    if (parts.length === 2) return { view: 'detail', id };
    if (parts.length === 3 && b === 'edit') return { view: 'edit', id };
    return null;
  }
  if (head === 'chat' && a !== undefined && extra === undefined) {
    const characterId = decode(a);
    if (characterId === null) return null;
    if (b === undefined) return { view: 'chat', characterId, sessionId: null };
    const sessionId = decode(b);
    return sessionId === null ? null : { view: 'chat', characterId, sessionId };
  }
  return null;
}

export function isTavernPath(rest: string): boolean {
  return parseTavernPath(rest) !== null;
}

/** The path (without the locale) of a tavern route. */
export function tavernPath(route: TavernRoute): string {
  const e = encodeURIComponent;
  switch (route.view) {
    case 'browse':
      return '/tavern';
    case 'mine':
      return '/tavern/mine';
    case 'new':
      return '/tavern/new';
    case 'detail':
      return `/tavern/character/${e(route.id)}`;
    case 'edit':
      return `/tavern/character/${e(route.id)}/edit`;
    case 'chat':
      return route.sessionId === null
        ? `/tavern/chat/${e(route.characterId)}`
        : `/tavern/chat/${e(route.characterId)}/${e(route.sessionId)}`;
  }
}
