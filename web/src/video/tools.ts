// The video tools (spec 2 §7 "Video upscale", DESIGN.md Video contract;
// protocol/src/video/{codes,constants,prepare}.rs): upscale, extend and
// frame interpolation of an uploaded video (`meta.generate_video.video_url`)
// or an earlier video task (`parent_task_id`); their request bodies, the
// estimate body, the client-side checks and the "my videos" list.
import { VIDEO_BASE } from '../api/video';
import type { Task } from '../tasks/types';
import { TaskStatus } from '../tasks/types';
import { videoOutputs } from './player';

export const VIDEO_TOOLS = ['upscale', 'extend', 'frameInterpolation'] as const;
export type VideoTool = (typeof VIDEO_TOOLS)[number];

export const TOOL_PATHS: Record<VideoTool, string> = {
  upscale: `${VIDEO_BASE}/upscale`,
  extend: `${VIDEO_BASE}/extend`,
  frameInterpolation: `${VIDEO_BASE}/frame-interpolation`,
};

/** The VideoAction codes (protocol/src/video/codes.rs). */
export const TOOL_ACTION_CODES: Record<VideoTool, number> = { upscale: 47, extend: 48, frameInterpolation: 49 };
/** Video action codes 42..=49 (a task of one of them is a video task). */
export const VIDEO_ACTION_CODES = { textToVideo: 42, imageToVideo: 43, multiImageToVideo: 44, effect: 45, live2d: 46, upscale: 47, extend: 48, frameInterpolation: 49 } as const;

/** protocol/src/video/constants.rs. */
export const UPSCALE_MAX_SIDE = 3840;
export const UPSCALE_FACTOR = 2;
export const TOOL_MAX_SOURCE_SECS = 60;
export const EXTEND_DURATIONS = [5, 10] as const;
export const INTERPOLATION_FACTOR = 2;

/** The video a tool works on. */
export type VideoSource =
  | { kind: 'upload'; url: string; width: number; height: number; duration: number; name: string }
  | { kind: 'task'; taskId: string; mp4: string; poster: string | undefined; width: number; height: number; duration: number };

export interface ToolOptions {
  /** Extend: seconds added (one of EXTEND_DURATIONS). */
  extendSeconds: number;
  /** Extend: what happens next (optional). */
  prompt: string;
}

export const DEFAULT_TOOL_OPTIONS: ToolOptions = { extendSeconds: 5, prompt: '' };

/** The tool call body (the server's VideoCreateRequest). */
export interface VideoToolBody {
  model_no: string;
  model_ver_no: string;
  parent_task_id?: string;
  meta: {
    prompt: string;
    width?: number;
    height?: number;
    generate_video: { video_url?: string; duration: number; generate_video_duration?: number };
    task_from: 'web';
  };
}

/** Twice the size, lowered to fit UPSCALE_MAX_SIDE, even sides (as encoders want). */
export function upscaleSize(width: number, height: number): { width: number; height: number } {
  const side = Math.max(width, height, 1);
  const factor = Math.min(UPSCALE_FACTOR, UPSCALE_MAX_SIDE / side);
  const even = (v: number) => Math.max(2, Math.floor((v * factor) / 2) * 2);
  return { width: even(width), height: even(height) };
}

/** The nearest allowed extension (ties to the shorter). */
export function snapExtend(seconds: number): number {
  return [...EXTEND_DURATIONS].reduce((best, d) => (Math.abs(d - seconds) < Math.abs(best - seconds) ? d : best), EXTEND_DURATIONS[0]);
}

/** Whole seconds of the source, as the server counts them. */
export function sourceSeconds(source: VideoSource): number {
  return Math.max(1, Math.ceil(source.duration));
}

/** A message key of a client-side check, else null (the server checks the same). */
export type ToolProblem = 'videoSourceMissing' | 'videoSourceTooLong' | 'videoUpscaleTooLarge' | 'NeedLogin';

export function checkTool(tool: VideoTool, source: VideoSource | null, loggedIn: boolean): ToolProblem | null {
  if (!loggedIn) return 'NeedLogin';
  if (source === null) return 'videoSourceMissing';
  if (!(source.duration > 0) || source.duration > TOOL_MAX_SOURCE_SECS) return 'videoSourceTooLong';
  if (tool === 'upscale' && Math.max(source.width, source.height) >= UPSCALE_MAX_SIDE) return 'videoUpscaleTooLarge';
  return null;
}

/** The body of a tool call on `source`. */
export function toolRequest(tool: VideoTool, source: VideoSource, options: ToolOptions = DEFAULT_TOOL_OPTIONS): VideoToolBody {
  const size = tool === 'upscale' ? upscaleSize(source.width, source.height) : null;
  return {
    model_no: '',
    model_ver_no: '',
    ...(source.kind === 'task' ? { parent_task_id: source.taskId } : {}),
    meta: {
      prompt: tool === 'extend' ? options.prompt.trim() : '',
      ...(size ? size : {}),
      generate_video: {
        ...(source.kind === 'upload' ? { video_url: source.url } : {}),
        duration: sourceSeconds(source),
        ...(tool === 'extend' ? { generate_video_duration: snapExtend(options.extendSeconds) } : {}),
      },
      task_from: 'web',
    },
  };
}

/**
 * The estimate body of a tool: its call body with `action` (the VideoAction
 * code), so the estimate can tell the tools apart from generation.
 */
export function toolEstimateBody(tool: VideoTool, source: VideoSource, options: ToolOptions = DEFAULT_TOOL_OPTIONS): VideoToolBody & { action: number } {
  return { ...toolRequest(tool, source, options), action: TOOL_ACTION_CODES[tool] };
}

/** A finished task with a video: a source for the tools. */
export function isVideoTask(task: Pick<Task, 'status' | 'video_uris'>): boolean {
  return task.status === TaskStatus.Success && (task.video_uris?.length ?? 0) > 0;
}

/** A task's first video as a tool source (its duration read by the page, 0 until known). */
export function taskSource(task: Task, duration = 0): VideoSource | null {
  const out = videoOutputs(task)[0];
  if (!out || task.status !== TaskStatus.Success) return null;
  return { kind: 'task', taskId: task.id, mp4: out.mp4, poster: out.poster, width: out.width, height: out.height, duration };
}

/** The user's finished video tasks, newest first. */
export function myVideos(tasks: readonly Task[]): Task[] {
  return tasks.filter(isVideoTask).sort((a, b) => b.create_at - a.create_at);
}
