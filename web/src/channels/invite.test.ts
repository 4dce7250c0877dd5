import { describe, expect, it } from 'vitest';
import {
  clearInvite,
  INVITE_STORAGE_KEY,
  inviteLink,
  isInviteCode,
  readInvite,
  saveInvite,
  takeInviteFromSearch,
} from './invite';
import type { KeyValueStore } from './invite';

function memoryStore(): KeyValueStore & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
  };
}

describe('invite code storage', () => {
  it('saves, reads and clears a code', () => {
    const s = memoryStore();
    expect(readInvite(s)).toBeNull();
    expect(saveInvite('AbC-12_x', s)).toBe(true);
    expect(s.map.get(INVITE_STORAGE_KEY)).toBe('AbC-12_x');
    expect(readInvite(s)).toBe('AbC-12_x');
    clearInvite(s);
    expect(readInvite(s)).toBeNull();
  });

  it('refuses malformed codes, stored or new', () => {
    const s = memoryStore();
    expect(saveInvite('<script>', s)).toBe(false);
    expect(saveInvite('', s)).toBe(false);
    s.map.set(INVITE_STORAGE_KEY, 'bad code');
    expect(readInvite(s)).toBeNull();
    expect(isInviteCode('x'.repeat(65))).toBe(false);
  });

  it('survives a storage that throws', () => {
    const broken: KeyValueStore = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('denied');
      },
      removeItem: () => {
        throw new Error('denied');
      },
    };
    expect(readInvite(broken)).toBeNull();
    expect(saveInvite('ABC', broken)).toBe(false);
    expect(() => clearInvite(broken)).not.toThrow();
  });

  it('takes the code out of the query string', () => {
    expect(takeInviteFromSearch('?invite=XYZ')).toEqual({ code: 'XYZ', search: '' });
    expect(takeInviteFromSearch('?a=1&invite=XYZ&b=2')).toEqual({ code: 'XYZ', search: '?a=1&b=2' });
    expect(takeInviteFromSearch('?invite=%3Cbad%3E')).toEqual({ code: null, search: '' });
    expect(takeInviteFromSearch('?a=1')).toEqual({ code: null, search: '?a=1' });
    expect(takeInviteFromSearch('')).toEqual({ code: null, search: '' });
  });

  it('builds the shareable link', () => {
    expect(inviteLink('https://easel.example', 'en', 'XYZ')).toBe('https://easel.example/en/channels?invite=XYZ');
  });
});
