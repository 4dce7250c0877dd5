// The ornament shop's path after the locale: `/ornaments`.
export const ORNAMENTS_PATH = '/ornaments';

export function isOrnamentsPath(rest: string): boolean {
  const path = rest.length > 1 && rest.endsWith('/') ? rest.slice(0, -1) : rest;
  return path === ORNAMENTS_PATH;
}
