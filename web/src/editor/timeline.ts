// The timeline's maths, pure: clip lengths and the total, trim clamping,
// adding, moving and removing clips, the music track, the checks the server
// makes on an edit (EDITOR_API `workspace/edit`), the operation log's entries
// and the undo history.
import type { Clip, Material, Music, Timeline } from './api';

/** The shortest trim window the editor makes, seconds. */
export const MIN_CLIP_SECS = 0.1;
/** The server's limits on a timeline (protocol/src/video/editor.rs). */
export const MAX_CLIPS = 50;
export const MAX_TOTAL_SECS = 300;
/** Music volume bounds (1 = as is). */
export const MIN_VOLUME = 0;
export const MAX_VOLUME = 2;
/** Longest workspace name, characters. */
export const MAX_NAME_CHARS = 80;
/** Undo keeps this many steps. */
export const HISTORY_LIMIT = 100;

export const EMPTY_TIMELINE: Timeline = { clips: [], music: null };

/** Seconds rounded to milliseconds (what the inputs and the wire carry). */
export function roundSecs(x: number): number {
  return Math.round(x * 1000) / 1000;
}

export function clipLength(clip: Pick<Clip, 'start' | 'end'>): number {
  return Math.max(0, clip.end - clip.start);
}

/** The output's length: the sum of the clips' lengths. */
export function totalDuration(timeline: Pick<Timeline, 'clips'>): number {
  return roundSecs(timeline.clips.reduce((sum, c) => sum + clipLength(c), 0));
}

/** Where each clip starts in the output, seconds. */
export function clipOffsets(timeline: Pick<Timeline, 'clips'>): number[] {
  const out: number[] = [];
  let at = 0;
  for (const c of timeline.clips) {
    out.push(roundSecs(at));
    at += clipLength(c);
  }
  return out;
}

function finite(x: number, fallback: number): number {
  return Number.isFinite(x) ? x : fallback;
}

/**
 * A trim window that fits a material of `duration` seconds: 0 <= start,
 * start + MIN_CLIP_SECS <= end <= duration (a material shorter than the
 * minimum is used whole).
 */
export function clampTrim(start: number, end: number, duration: number): { start: number; end: number } {
  const d = Math.max(0, finite(duration, 0));
  if (d <= MIN_CLIP_SECS) return { start: 0, end: roundSecs(d) };
  const s = Math.min(Math.max(0, finite(start, 0)), d - MIN_CLIP_SECS);
  const e = Math.min(Math.max(s + MIN_CLIP_SECS, finite(end, d)), d);
  return { start: roundSecs(s), end: roundSecs(e) };
}

/** Moves a clip's start, keeping its end: clamped to [0, end - MIN_CLIP_SECS]. */
export function trimStart(clip: Clip, start: number, duration: number): Clip {
  const end = clampTrim(clip.start, clip.end, duration).end;
  const s = Math.min(Math.max(0, finite(start, clip.start)), Math.max(0, end - MIN_CLIP_SECS));
  return { ...clip, start: roundSecs(s), end };
}

/** Moves a clip's end, keeping its start: clamped to [start + MIN_CLIP_SECS, duration]. */
export function trimEnd(clip: Clip, end: number, duration: number): Clip {
  const start = clampTrim(clip.start, clip.end, duration).start;
  const d = Math.max(0, finite(duration, 0));
  const e = Math.max(Math.min(finite(end, clip.end), d), Math.min(start + MIN_CLIP_SECS, d));
  return { ...clip, start, end: roundSecs(e) };
}

/** The timeline with `clip` at `index` replaced. */
export function replaceClip(timeline: Timeline, index: number, clip: Clip): Timeline {
  if (index < 0 || index >= timeline.clips.length) return timeline;
  return { ...timeline, clips: timeline.clips.map((c, i) => (i === index ? clip : c)) };
}

/** Appends the whole of a video material as a clip. */
export function addClip(timeline: Timeline, material: Pick<Material, 'material_id' | 'duration'>): Timeline {
  const { start, end } = clampTrim(0, material.duration, material.duration);
  return { ...timeline, clips: [...timeline.clips, { material_id: material.material_id, start, end }] };
}

/** Moves the clip at `from` to position `to` (both clamped into the list). */
export function moveClip(timeline: Timeline, from: number, to: number): Timeline {
  const n = timeline.clips.length;
  if (from < 0 || from >= n) return timeline;
  const target = Math.min(Math.max(0, to), n - 1);
  if (target === from) return timeline;
  const clips = [...timeline.clips];
  const [moved] = clips.splice(from, 1);
  if (moved === undefined) return timeline;
  clips.splice(target, 0, moved);
  return { ...timeline, clips };
}

export function removeClip(timeline: Timeline, index: number): Timeline {
  if (index < 0 || index >= timeline.clips.length) return timeline;
  return { ...timeline, clips: timeline.clips.filter((_, i) => i !== index) };
}

export function clampVolume(volume: number): number {
  return Math.round(Math.min(MAX_VOLUME, Math.max(MIN_VOLUME, finite(volume, 1))) * 100) / 100;
}

/** Sets (or clears) the music track; a new track starts at 0 at volume 1. */
export function setMusic(timeline: Timeline, materialId: string | null): Timeline {
  if (materialId === null) return { ...timeline, music: null };
  if (timeline.music?.material_id === materialId) return timeline;
  return { ...timeline, music: { material_id: materialId, start: 0, volume: 1 } };
}

export function setMusicVolume(timeline: Timeline, volume: number): Timeline {
  if (timeline.music === null) return timeline;
  return { ...timeline, music: { ...timeline.music, volume: clampVolume(volume) } };
}

/** The offset inside the music's material: clamped to [0, duration). */
export function setMusicStart(timeline: Timeline, start: number, duration: number): Timeline {
  if (timeline.music === null) return timeline;
  const max = Math.max(0, finite(duration, 0) - MIN_CLIP_SECS);
  const s = roundSecs(Math.min(Math.max(0, finite(start, 0)), max));
  return { ...timeline, music: { ...timeline.music, start: s } };
}

export function sameTimeline(a: Timeline, b: Timeline): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** What would make the server refuse this timeline, as a message key, or null. */
export type TimelineProblem = 'editor.problem.tooManyClips' | 'editor.problem.tooLong' | 'editor.problem.missingMaterial' | 'editor.problem.badTrim';

export function timelineProblem(timeline: Timeline, materials: ReadonlyMap<string, Pick<Material, 'kind' | 'duration' | 'has_audio'>>): TimelineProblem | null {
  if (timeline.clips.length > MAX_CLIPS) return 'editor.problem.tooManyClips';
  if (totalDuration(timeline) > MAX_TOTAL_SECS) return 'editor.problem.tooLong';
  for (const c of timeline.clips) {
    const m = materials.get(c.material_id);
    if (m === undefined || m.kind !== 'video') return 'editor.problem.missingMaterial';
    if (!(c.start >= 0 && c.start < c.end && c.end <= m.duration + 0.001)) return 'editor.problem.badTrim';
  }
  const music: Music | null = timeline.music;
  if (music !== null) {
    const m = materials.get(music.material_id);
    if (m === undefined || !m.has_audio) return 'editor.problem.missingMaterial';
  }
  return null;
}

/** One entry of the operation log (operation/save): what the person did. */
export type EditOp =
  | { op: 'addClip'; material_id: string; index: number }
  | { op: 'removeClip'; material_id: string; index: number }
  | { op: 'moveClip'; from: number; to: number }
  | { op: 'trimClip'; index: number; start: number; end: number }
  | { op: 'setMusic'; material_id: string | null }
  | { op: 'musicVolume'; volume: number }
  | { op: 'musicStart'; start: number }
  | { op: 'rename'; name: string }
  | { op: 'undo'; undone: EditOp };

/** An undo step: the timeline before the operation; `merge` when it came from a drag. */
export interface HistoryEntry {
  op: EditOp;
  before: Timeline;
  merge: boolean;
}

/** Repeated edits of one value (a trim, the name, the volume) may merge into one log entry or undo step. */
export function mergesWith(last: EditOp | undefined, next: EditOp): boolean {
  if (last === undefined) return false;
  if (last.op === 'trimClip' && next.op === 'trimClip') return last.index === next.index;
  if (last.op === 'musicVolume' && next.op === 'musicVolume') return true;
  if (last.op === 'musicStart' && next.op === 'musicStart') return true;
  if (last.op === 'rename' && next.op === 'rename') return true;
  return false;
}

/**
 * The history after `op` turned `before` into a new timeline. `merge`: the
 * op comes from dragging a handle or slider, and merges with the previous
 * drag of the same value into one undo step; typed values are steps of their own.
 */
export function pushHistory(history: readonly HistoryEntry[], op: EditOp, before: Timeline, merge = false): HistoryEntry[] {
  const last = history[history.length - 1];
  if (merge && last !== undefined && last.merge && mergesWith(last.op, op)) return [...history.slice(0, -1), { op, before: last.before, merge }];
  return [...history, { op, before, merge }].slice(-HISTORY_LIMIT);
}

/** Pending log entries with `op` added; a merged edit replaces the previous one. */
export function pushPending(pending: readonly EditOp[], op: EditOp): EditOp[] {
  const last = pending[pending.length - 1];
  if (last !== undefined && mergesWith(last, op)) return [...pending.slice(0, -1), op];
  return [...pending, op];
}

/** `m:ss.s` for a number of seconds. */
export function formatSecs(secs: number): string {
  const s = Math.max(0, finite(secs, 0));
  const minutes = Math.floor(s / 60);
  const rest = s - minutes * 60;
  const tenths = Math.floor(rest * 10 + 1e-6) / 10;
  return `${minutes}:${tenths < 10 ? '0' : ''}${tenths.toFixed(1)}`;
}
