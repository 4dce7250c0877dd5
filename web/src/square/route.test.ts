import { describe, expect, it } from 'vitest';
import { parseSquarePath, profilePath, searchPath, tagPath, workPath } from './route';

describe('square routes', () => {
  it('parses works, profiles and search', () => {
    expect(parseSquarePath('/artWorkDetail/w1')).toEqual({ view: 'work', id: 'w1', article: false });
    expect(parseSquarePath('/articleDetail/a%20b/')).toEqual({ view: 'work', id: 'a b', article: true });
    expect(parseSquarePath('/user/u1')).toEqual({ view: 'profile', id: 'u1', tab: 'works' });
    expect(parseSquarePath('/user/u1/followers')).toEqual({ view: 'profile', id: 'u1', tab: 'followers' });
    expect(parseSquarePath('/search')).toEqual({ view: 'search' });
  });

  it('refuses other paths', () => {
    for (const p of ['/', '/artWorkDetail', '/artWorkDetail/', '/artWorkDetail/a/b', '/user/u1/bogus', '/user', '/user/%E0%A4%A']) {
      expect(parseSquarePath(p), p).toBeNull();
    }
  });

  it('builds paths that parse back', () => {
    expect(parseSquarePath(workPath('x/y', true))).toEqual({ view: 'work', id: 'x/y', article: true });
    expect(parseSquarePath(profilePath('u 1', 'likes'))).toEqual({ view: 'profile', id: 'u 1', tab: 'likes' });
    expect(profilePath('u1')).toBe('/user/u1');
    expect(searchPath(' red cat ', 'account')).toBe('/search?q=red+cat&kind=account');
    expect(searchPath('', 'all')).toBe('/search');
    expect(tagPath('sea side')).toBe('/?tag=sea+side');
  });
});
