import { describe, expect, it } from 'vitest';
import type { Card } from '../square/types';
import { applyVote, candidates, canVote, entryPath, joinBlock, modelType, myEntriesIn, postType, prizeOf, sourcesFor } from './model';
import type { MyObjects } from './model';
import type { Entry, Period } from './types';

const H = 3_600_000;
const T0 = Date.UTC(2026, 10, 27);

function card(id: string, kind: string | null, title = id): Card {
  return {
    obj_type: 4, content_sub_type: kind, id, title, cover: { url: `/files/${id}.png`, width: 1, height: 1 }, image_count: 1,
    author: { id: 'me', name: 'Me' }, tags: [], nsfw: false, likes: 0, collects: 0, comments: 0, views: 0, liked: false, collected: false, create_at: 0,
  } as Card;
}

const mine: MyObjects = {
  posts: [card('p1', 'picture'), card('v1', 'video'), card('a1', 'article'), card('p2', null)],
  characters: [
    { id: 'c1', name: 'Ann', avatar: '/files/c1.png', published: true },
    { id: 'c2', name: 'Draft', avatar: '', published: false },
  ],
  models: [
    { model_id: 'm1', name: 'Ckpt', model_type: 'checkpoint', publish_status: 1, cover: null },
    { model_id: 'm2', name: 'Lora', model_type: 'lora', publish_status: 1, cover: null },
    { model_id: 'm3', name: 'Lora draft', model_type: 'lora', publish_status: 0, cover: null },
    { model_id: 'm4', name: 'Emb', model_type: 'embedding', publish_status: 1, cover: null },
  ],
};

describe('contribution types of my objects (spec 3 §3)', () => {
  it('posts by kind, models by type', () => {
    expect(postType({ content_sub_type: 'picture' })).toBe('work');
    expect(postType({ content_sub_type: null })).toBe('work');
    expect(postType({ content_sub_type: 'Video' })).toBe('local_video');
    expect(postType({ content_sub_type: 'article' })).toBe('article');
    expect(modelType('checkpoint')).toBe('model_Checkpoint');
    expect(modelType('lora')).toBe('model_LORA');
    expect(modelType('embedding')).toBeNull();
  });

  it('offers only the allowed types', () => {
    expect(candidates(mine, ['work']).map((c) => c.obj_id)).toEqual(['p1', 'p2']);
    expect(candidates(mine, ['local_video', 'article']).map((c) => `${c.type}:${c.obj_id}`)).toEqual(['local_video:v1', 'article:a1']);
    expect(candidates(mine, []).length).toBe(0);
  });

  it('leaves out drafts (characters, models) and embeddings; keeps the spec order', () => {
    const all = candidates(mine, ['model_LORA', 'character', 'model_Checkpoint', 'work']);
    expect(all.map((c) => `${c.type}:${c.obj_id}`)).toEqual(['work:p1', 'work:p2', 'character:c1', 'model_Checkpoint:m1', 'model_LORA:m2']);
    expect(all.find((c) => c.obj_id === 'c1')?.cover).toBe('/files/c1.png');
  });

  it('offers an object once', () => {
    expect(candidates({ ...mine, posts: [card('p1', 'picture'), card('p1', 'picture')] }, ['work']).length).toBe(1);
  });

  it('reads only the lists the types need', () => {
    expect(sourcesFor(['work'])).toEqual({ posts: true, characters: false, models: false });
    expect(sourcesFor(['character'])).toEqual({ posts: false, characters: true, models: false });
    expect(sourcesFor(['model_LORA', 'article'])).toEqual({ posts: true, characters: false, models: true });
  });
});

const periods: Period[] = [
  { index: 0, start: T0, end: T0 + 24 * H, status: 'live' },
  { index: 1, start: T0 + 24 * H, end: T0 + 48 * H, status: 'upcoming' },
];

describe('joining and voting', () => {
  const activity = { periods, max_entries: 2, judging: 'votes' as const };
  it('join: closed outside a live period, login before the limit', () => {
    expect(joinBlock(activity, true, 0, T0 - 1)).toBe('closed');
    expect(joinBlock(activity, false, 0, T0)).toBe('login');
    expect(joinBlock(activity, true, 1, T0)).toBeNull();
    expect(joinBlock(activity, true, 2, T0)).toBe('limit');
    expect(joinBlock(activity, true, 0, T0 + 48 * H)).toBe('closed');
    expect(joinBlock({ ...activity, periods: [{ ...periods[0]!, status: 'closed' }] }, true, 0, T0 + H)).toBe('closed');
  });

  it('vote: votes mode, live period, not my own', () => {
    const entry = { period: 0, author: { id: 'ann', name: 'Ann' } };
    expect(canVote(activity, entry, 'bob', T0 + H)).toBe(true);
    expect(canVote(activity, entry, null, T0 + H)).toBe(true);
    expect(canVote(activity, entry, 'ann', T0 + H)).toBe(false);
    expect(canVote({ ...activity, judging: 'picks' }, entry, 'bob', T0 + H)).toBe(false);
    expect(canVote(activity, entry, 'bob', T0 + 24 * H)).toBe(false);
    expect(canVote(activity, { ...entry, period: null }, 'bob', T0 + H)).toBe(false);
    expect(canVote(activity, { ...entry, period: 7 }, 'bob', T0 + H)).toBe(false);
  });

  it('counts my entries in a period, removed ones aside', () => {
    const e = (activity_id: string, period: number, status: Entry['status']) => ({ activity_id, period, status }) as Entry;
    expect(myEntriesIn([e('a', 0, 'entered'), e('a', 0, 'removed'), e('a', 1, 'entered'), e('b', 0, 'entered')], 'a', 0)).toBe(1);
  });

  it('applies a vote answer to its entry only', () => {
    const e = (entry_id: string) => ({ entry_id, votes: 1, voted: false }) as Entry;
    const after = applyVote([e('x'), e('y')], { entry_id: 'y', votes: 2, voted: true });
    expect(after.map((x) => [x.entry_id, x.votes, x.voted])).toEqual([
      ['x', 1, false],
      ['y', 2, true],
    ]);
  });

  it('prizes by rank', () => {
    expect(prizeOf([500, 200], 1)).toBe(500);
    expect(prizeOf([500, 200], 2)).toBe(200);
    expect(prizeOf([500, 200], 3)).toBe(0);
    expect(prizeOf([500, 200], 0)).toBe(0);
  });

  it('links an entry to its object’s page', () => {
    expect(entryPath({ type: 'work', obj_id: 'a b' })).toBe('/artWorkDetail/a%20b');
    expect(entryPath({ type: 'local_video', obj_id: 'v' })).toBe('/artWorkDetail/v');
    expect(entryPath({ type: 'article', obj_id: 'a' })).toBe('/articleDetail/a');
    expect(entryPath({ type: 'character', obj_id: 'c' })).toBe('/tavern/character/c');
    expect(entryPath({ type: 'model_LORA', obj_id: 'm' })).toBe('/models/detail/m');
  });
});
