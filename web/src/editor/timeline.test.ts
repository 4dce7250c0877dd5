// The timeline's maths: lengths and the total, trim clamping, reorder, music, the server's checks,
// the undo history and the operation log's merging.
import { describe, expect, it } from 'vitest';
import type { Material, Timeline } from './api';
import {
  addClip,
  clampTrim,
  clampVolume,
  clipOffsets,
  EMPTY_TIMELINE,
  formatSecs,
  MAX_CLIPS,
  MIN_CLIP_SECS,
  moveClip,
  pushHistory,
  pushPending,
  removeClip,
  replaceClip,
  setMusic,
  setMusicStart,
  setMusicVolume,
  timelineProblem,
  totalDuration,
  trimEnd,
  trimStart,
} from './timeline';
import type { EditOp, HistoryEntry } from './timeline';

const tl = (...clips: Array<[string, number, number]>): Timeline => ({
  clips: clips.map(([material_id, start, end]) => ({ material_id, start, end })),
  music: null,
});

function material(id: string, over: Partial<Material> = {}): Material {
  return { material_id: id, kind: 'video', name: id, url: `/files/${id}.mp4`, poster_url: null, duration: 5, width: 640, height: 360, has_audio: false, source: 'upload', created_at: 0, ...over };
}

describe('durations', () => {
  it('sums the clip lengths and places each clip', () => {
    const t = tl(['a', 0, 2.5], ['b', 1, 4], ['c', 0.25, 0.35]);
    expect(totalDuration(t)).toBe(5.6);
    expect(clipOffsets(t)).toEqual([0, 2.5, 5.5]);
    expect(totalDuration(EMPTY_TIMELINE)).toBe(0);
    expect(clipOffsets(EMPTY_TIMELINE)).toEqual([]);
  });

  it('formats seconds as m:ss.s', () => {
    expect(formatSecs(0)).toBe('0:00.0');
    expect(formatSecs(5.67)).toBe('0:05.6');
    expect(formatSecs(65.2)).toBe('1:05.2');
    expect(formatSecs(600)).toBe('10:00.0');
    expect(formatSecs(Number.NaN)).toBe('0:00.0');
  });
});

describe('trim clamping', () => {
  it('keeps the window inside the material and at least MIN_CLIP_SECS long', () => {
    expect(clampTrim(-1, 10, 5)).toEqual({ start: 0, end: 5 });
    expect(clampTrim(4.99, 5, 5)).toEqual({ start: 4.9, end: 5 });
    expect(clampTrim(2, 1, 5)).toEqual({ start: 2, end: 2.1 });
    expect(clampTrim(Number.NaN, Number.NaN, 3)).toEqual({ start: 0, end: 3 });
    // A material shorter than the minimum is used whole.
    expect(clampTrim(0.01, 0.02, 0.05)).toEqual({ start: 0, end: 0.05 });
  });

  it('moves the start keeping the end, and the end keeping the start', () => {
    const clip = { material_id: 'a', start: 1, end: 3 };
    expect(trimStart(clip, 2, 5)).toEqual({ material_id: 'a', start: 2, end: 3 });
    expect(trimStart(clip, 3.5, 5)).toEqual({ material_id: 'a', start: 3 - MIN_CLIP_SECS, end: 3 });
    expect(trimStart(clip, -2, 5).start).toBe(0);
    expect(trimEnd(clip, 4.5, 5)).toEqual({ material_id: 'a', start: 1, end: 4.5 });
    expect(trimEnd(clip, 9, 5).end).toBe(5);
    expect(trimEnd(clip, 0.5, 5)).toEqual({ material_id: 'a', start: 1, end: 1.1 });
    // A clip already outside a (shorter) material is pulled back in.
    expect(trimEnd({ material_id: 'a', start: 4, end: 8 }, 7, 5)).toEqual({ material_id: 'a', start: 4, end: 5 });
  });
});

describe('clips', () => {
  it('adds whole materials and replaces one clip', () => {
    const t = addClip(addClip(EMPTY_TIMELINE, material('a', { duration: 4.2 })), material('b', { duration: 2 }));
    expect(t.clips).toEqual([
      { material_id: 'a', start: 0, end: 4.2 },
      { material_id: 'b', start: 0, end: 2 },
    ]);
    expect(replaceClip(t, 1, { material_id: 'b', start: 0.5, end: 1 }).clips[1]).toEqual({ material_id: 'b', start: 0.5, end: 1 });
    expect(replaceClip(t, 5, { material_id: 'x', start: 0, end: 1 })).toBe(t);
  });

  it('reorders and removes', () => {
    const t = tl(['a', 0, 1], ['b', 0, 1], ['c', 0, 1]);
    const ids = (x: Timeline) => x.clips.map((c) => c.material_id).join('');
    expect(ids(moveClip(t, 0, 2))).toBe('bca');
    expect(ids(moveClip(t, 2, 0))).toBe('cab');
    expect(ids(moveClip(t, 1, 0))).toBe('bac');
    expect(ids(moveClip(t, 1, 99))).toBe('acb');
    expect(moveClip(t, 1, 1)).toBe(t);
    expect(moveClip(t, 7, 0)).toBe(t);
    expect(ids(removeClip(t, 1))).toBe('ac');
    expect(removeClip(t, 3)).toBe(t);
  });
});

describe('music', () => {
  it('sets, clears and clamps volume and start', () => {
    let t = setMusic(tl(['a', 0, 1]), 'm');
    expect(t.music).toEqual({ material_id: 'm', start: 0, volume: 1 });
    expect(setMusic(t, 'm')).toBe(t);
    t = setMusicVolume(t, 2.7);
    expect(t.music?.volume).toBe(2);
    expect(setMusicVolume(t, -1).music?.volume).toBe(0);
    expect(clampVolume(0.333)).toBe(0.33);
    t = setMusicStart(t, 50, 10);
    expect(t.music?.start).toBe(9.9);
    expect(setMusicStart(t, -3, 10).music?.start).toBe(0);
    expect(setMusic(t, null).music).toBeNull();
    expect(setMusicVolume(EMPTY_TIMELINE, 1)).toBe(EMPTY_TIMELINE);
  });
});

describe("the server's checks", () => {
  const bin = new Map([
    ['a', material('a')],
    ['song', material('song', { kind: 'audio', has_audio: true })],
    ['silent', material('silent', { has_audio: false })],
  ]);

  it('accepts a valid timeline, up to the longest edit', () => {
    expect(timelineProblem(tl(...Array.from({ length: 20 }, (): [string, number, number] => ['a', 0, 15])), new Map([['a', material('a', { duration: 15 })]]))).toBeNull();
    expect(timelineProblem({ ...tl(['a', 0, 5], ['a', 1, 2]), music: { material_id: 'song', start: 0, volume: 1 } }, bin)).toBeNull();
  });

  it('names what the server would refuse', () => {
    expect(timelineProblem(tl(...Array.from({ length: MAX_CLIPS + 1 }, (): [string, number, number] => ['a', 0, 1])), bin)).toBe('editor.problem.tooManyClips');
    expect(timelineProblem(tl(...Array.from({ length: 21 }, (): [string, number, number] => ['a', 0, 15])), new Map([['a', material('a', { duration: 15 })]]))).toBe('editor.problem.tooLong');
    expect(timelineProblem(tl(['gone', 0, 1]), bin)).toBe('editor.problem.missingMaterial');
    expect(timelineProblem(tl(['song', 0, 1]), bin)).toBe('editor.problem.missingMaterial');
    expect(timelineProblem(tl(['a', 2, 6]), bin)).toBe('editor.problem.badTrim');
    expect(timelineProblem(tl(['a', 2, 2]), bin)).toBe('editor.problem.badTrim');
    expect(timelineProblem({ ...tl(['a', 0, 1]), music: { material_id: 'silent', start: 0, volume: 1 } }, bin)).toBe('editor.problem.missingMaterial');
  });
});

describe('history and the operation log', () => {
  const t0 = tl(['a', 0, 5]);
  const t1 = tl(['a', 1, 5]);
  const trim = (index: number, start: number): EditOp => ({ op: 'trimClip', index, start, end: 5 });

  it('merges drags of one value into one undo step that keeps the first timeline; typed values stay apart', () => {
    let h: HistoryEntry[] = pushHistory([], trim(0, 1), t0, true);
    h = pushHistory(h, trim(0, 2), t1, true);
    expect(h).toEqual([{ op: trim(0, 2), before: t0, merge: true }]);
    h = pushHistory(h, trim(1, 2), t1, true);
    expect(h).toHaveLength(2);
    // A typed trim after a drag of the same clip is its own step, and so is the next one.
    h = pushHistory(h, trim(1, 3), t1);
    h = pushHistory(h, trim(1, 4), t1);
    expect(h).toHaveLength(4);
    h = pushHistory(h, { op: 'moveClip', from: 0, to: 1 }, t1, true);
    h = pushHistory(h, { op: 'moveClip', from: 1, to: 0 }, t1, true);
    expect(h).toHaveLength(6);
  });

  it('keeps the last 100 steps', () => {
    let h: HistoryEntry[] = [];
    for (let i = 0; i < 120; i++) h = pushHistory(h, { op: 'moveClip', from: i, to: 0 }, t0);
    expect(h).toHaveLength(100);
    expect(h[0]?.op).toEqual({ op: 'moveClip', from: 20, to: 0 });
  });

  it('replaces a pending edit of the same value', () => {
    let p = pushPending([], trim(0, 1));
    p = pushPending(p, trim(0, 1.5));
    p = pushPending(p, { op: 'musicVolume', volume: 0.5 });
    p = pushPending(p, { op: 'musicVolume', volume: 0.6 });
    p = pushPending(p, { op: 'rename', name: 'x' });
    p = pushPending(p, { op: 'rename', name: 'xy' });
    expect(p).toEqual([trim(0, 1.5), { op: 'musicVolume', volume: 0.6 }, { op: 'rename', name: 'xy' }]);
  });
});
