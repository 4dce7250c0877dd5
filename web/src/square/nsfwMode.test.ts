// The viewer's NSFW mode: an account's is its server setting (saved through
// `account/profile/edit`, restored when refused); a visitor's stays in this
// browser, may be blur or hide only, and goes with feed requests; cards
// show the server's rating.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createAppStore } from '../state/jotai';
import { saveNsfwMode } from './actions';
import { SquareApi } from './api';
import { accountNsfwModeAtom, NSFW_MODE_KEY, nsfwModeAtom, nsfwModesAtom, showNsfwAtom } from './atoms';
import type { Profile } from './types';
import { cardRating } from './WorkCard';

function profile(mode: 'blur' | 'hide' | 'show'): Profile {
  return { id: 'a', name: 'A', bio: '', followers: 0, following: 0, works: 0, likes_received: 0, followed: false, me: true, create_at: 0, nsfw_mode: mode };
}

describe('the NSFW mode', () => {
  beforeEach(() => localStorage.clear());

  it('lets a visitor blur or hide, never show, and keeps it in the browser', async () => {
    const store = createAppStore();
    expect(store.get(nsfwModesAtom)).toEqual(['blur', 'hide']);
    const editProfile = vi.fn();
    await saveNsfwMode('hide', store, { editProfile });
    expect(store.get(nsfwModeAtom)).toBe('hide');
    expect(localStorage.getItem(NSFW_MODE_KEY)).toBe('hide');
    await saveNsfwMode('show', store, { editProfile });
    expect(store.get(nsfwModeAtom)).toBe('blur');
    expect(store.get(showNsfwAtom)).toBe(false);
    expect(editProfile).not.toHaveBeenCalled();
  });

  it("saves a signed-in account's mode on the server and restores it when refused", async () => {
    const store = createAppStore();
    store.set(accountNsfwModeAtom, 'blur');
    expect(store.get(nsfwModesAtom)).toEqual(['blur', 'hide', 'show']);
    const editProfile = vi.fn().mockResolvedValue(profile('show'));
    await saveNsfwMode('show', store, { editProfile });
    expect(editProfile).toHaveBeenCalledWith({ nsfw_mode: 'show' });
    expect(store.get(nsfwModeAtom)).toBe('show');
    expect(store.get(showNsfwAtom)).toBe(true);
    expect(localStorage.getItem(NSFW_MODE_KEY)).toBeNull();
    const refused = vi.fn().mockRejectedValue(new Error('offline'));
    await expect(saveNsfwMode('hide', store, { editProfile: refused })).rejects.toThrow('offline');
    expect(store.get(nsfwModeAtom)).toBe('show');
  });

  it("sends the visitor's mode with feed and search requests", async () => {
    localStorage.setItem(NSFW_MODE_KEY, 'hide');
    const post = vi.fn().mockResolvedValue({ items: [], next_cursor: null });
    const sq = new SquareApi({ post });
    await sq.feed('home', { order_by: 'new' });
    await sq.search('lake', 'all', null);
    expect(post.mock.calls[0]?.[1]).toMatchObject({ order_by: 'new', nsfw_mode: 'hide' });
    expect(post.mock.calls[1]?.[1]).toMatchObject({ keyword: 'lake', nsfw_mode: 'hide' });
    // A stored "show" (an older opt-in) is never sent by a visitor.
    localStorage.setItem(NSFW_MODE_KEY, 'show');
    await sq.feed('home', {});
    expect(post.mock.calls[2]?.[1]).toMatchObject({ nsfw_mode: 'blur' });
  });

  it('rates cards from the server, NSFW winning', () => {
    expect(cardRating({ nsfw: false, rating: 'suggestive' })).toBe('suggestive');
    expect(cardRating({ nsfw: true, rating: 'safe' })).toBe('nsfw');
    expect(cardRating({ nsfw: false })).toBe('safe');
    expect(cardRating({ nsfw: false, rating: 'nsfw' })).toBe('nsfw');
  });
});
