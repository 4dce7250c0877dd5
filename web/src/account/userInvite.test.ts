import { describe, expect, it } from 'vitest';
import type { KeyValueStore } from '../channels/invite';
import { clearUserInvite, readUserInvite, saveUserInvite, takeUserInviteFromSearch, USER_INVITE_KEY } from './userInvite';

function memoryStore(): KeyValueStore & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
  };
}

describe('user invite code storage', () => {
  it('keeps a valid code, refuses a bad one, and clears', () => {
    const s = memoryStore();
    expect(saveUserInvite('AB3KX9QZ', s)).toBe(true);
    expect(readUserInvite(s)).toBe('AB3KX9QZ');
    expect(saveUserInvite('<script>', s)).toBe(false);
    expect(readUserInvite(s)).toBe('AB3KX9QZ');
    clearUserInvite(s);
    expect(readUserInvite(s)).toBeNull();
    s.map.set(USER_INVITE_KEY, 'not valid!');
    expect(readUserInvite(s)).toBeNull();
  });

  it('takes the code out of the query, whichever parameter carries it', () => {
    expect(takeUserInviteFromSearch('?invite=AB3K', '/en/')).toEqual({ code: 'AB3K', search: '' });
    expect(takeUserInviteFromSearch('?a=1&invite_user_code=Q7&b=2', '/en/generate')).toEqual({
      code: 'Q7',
      search: '?a=1&b=2',
    });
    expect(takeUserInviteFromSearch('?invitation_code=%3Cx%3E', '/en/')).toEqual({ code: null, search: '' });
    expect(takeUserInviteFromSearch('?a=1', '/en/')).toEqual({ code: null, search: '?a=1' });
  });

  it('leaves the channels page its own ?invite=', () => {
    expect(takeUserInviteFromSearch('?invite=chan-1', '/en/channels')).toEqual({ code: null, search: '?invite=chan-1' });
    expect(takeUserInviteFromSearch('?invite=chan&invite_code=U1', '/en/channels')).toEqual({
      code: 'U1',
      search: '?invite=chan',
    });
  });
});
