import { describe, expect, it } from 'vitest';
import { isTavernPath, parseTavernPath, tavernPath } from './route';
import type { TavernRoute } from './route';

describe('tavern routes', () => {
  it('round-trips every view', () => {
    const routes: TavernRoute[] = [
      { view: 'browse' },
      { view: 'mine' },
      { view: 'new' },
      { view: 'detail', id: 'c 1' },
      { view: 'edit', id: 'c1' },
      { view: 'chat', characterId: 'c1', sessionId: null },
      { view: 'chat', characterId: 'c1', sessionId: 's/2' },
    ];
    for (const r of routes) expect(parseTavernPath(tavernPath(r))).toEqual(r);
  });

  it('refuses other paths', () => {
    expect(parseTavernPath('/tavern/')).toEqual({ view: 'browse' });
    for (const p of ['/tavernx', '/tavern/other', '/tavern/character', '/tavern/character/a/b', '/tavern/chat/a/b/c', '/channels']) {
      expect(isTavernPath(p), p).toBe(false);
    }
  });
});
