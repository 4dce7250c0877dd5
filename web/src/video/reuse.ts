// "Reuse" of a video task and the video tools run from a result's action
// bar, over the app's store: reuse opens the video page on the tab the task
// restores to (restore.ts), its form filled from the task; a tool button
// creates the tool's task on the result with parent_task_id.
import { tokenAtom } from '../account/atoms';
import type { ApiClient } from '../api/client';
import { fetchVideoParams } from '../api/video';
import type { VideoParams } from '../api/video';
import type { ImageInput } from '../generator/config';
import { paymentInfoAtom, roleAtom } from '../generator/atoms';
import { localePath } from '../router/locale';
import { localeAtom, navigate, routeAtom } from '../router/router';
import type { AppStore } from '../state/jotai';
import { trackTaskAtom } from '../tasks/atoms';
import type { Task } from '../tasks/types';
import { videoConfigsAtom, videoParamsAtom, videoPartAtom, videoTabAtom } from './atoms';
import { readVideoMeta } from './cover';
import type { VideoCaller, VideoTab } from './model';
import type { VideoOutput } from './player';
import { restoredConfig, taskRestoreTab } from './restore';
import { DEFAULT_TOOL_OPTIONS, TOOL_PATHS, checkTool, toolRequest } from './tools';
import type { ToolProblem, VideoSource, VideoTool } from './tools';

/** The page's path under a locale. */
export const VIDEO_PAGE = '/create/video';

/** The models' config: the page's, or fetched (and kept) when the page was not opened yet. */
async function videoParams(store: AppStore, api: Pick<ApiClient, 'post'>): Promise<VideoParams> {
  const state = store.get(videoParamsAtom);
  if (state.state === 'ready') return state.params;
  const params = await fetchVideoParams(api);
  store.set(videoParamsAtom, { state: 'ready', params });
  return params;
}

function callerOf(store: AppStore): VideoCaller {
  const payment = store.get(paymentInfoAtom);
  return { role: store.get(roleAtom), payment: payment !== null && payment.token === store.get(tokenAtom) ? payment.info : null };
}

/** A picture's natural size, read in the browser (0×0 when it cannot be read). */
async function pictureOf(url: string): Promise<ImageInput> {
  const name = decodeURIComponent(url.split('/').pop() ?? '') || 'image';
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    return { url, name, width: img.naturalWidth, height: img.naturalHeight };
  } catch {
    return { url, name, width: 0, height: 0 };
  }
}

/**
 * Restores `task` into the video form (§4 "restoring a task"): answers the
 * tab it opened, or null when the task restores to none (tools, images).
 */
export async function reuseVideoTask(store: AppStore, api: Pick<ApiClient, 'post'>, task: Task): Promise<VideoTab | null> {
  const params = await videoParams(store, api);
  const tab = taskRestoreTab(params, task);
  if (tab === null) return null;
  const images = await Promise.all(task.preprocess_images.map(pictureOf));
  const config = restoredConfig(tab, task, images, params, callerOf(store));
  store.set(videoConfigsAtom, (all) => ({ ...all, [tab]: config }));
  store.set(videoTabAtom, tab);
  store.set(videoPartAtom, 'generate');
  const route = store.get(routeAtom);
  if (route.rest.replace(/\/$/, '') !== VIDEO_PAGE) navigate(store, localePath(store.get(localeAtom), VIDEO_PAGE));
  return tab;
}

/** A result's video as a tool source: its size and seconds read from the file. */
export async function resultSource(task: Task, output: VideoOutput): Promise<VideoSource> {
  const meta = await readVideoMeta(output.mp4).catch(() => null);
  return {
    kind: 'task',
    taskId: task.id,
    mp4: output.mp4,
    poster: output.poster,
    width: meta?.width || output.width,
    height: meta?.height || output.height,
    duration: meta?.duration ?? 0,
  };
}

/** Runs `tool` on a finished video task; answers the new task id, or the problem found before any call. */
export async function runToolOnResult(
  store: AppStore,
  api: Pick<ApiClient, 'post'>,
  tool: VideoTool,
  task: Task,
  output: VideoOutput,
): Promise<{ id: string } | { problem: ToolProblem }> {
  const source = await resultSource(task, output);
  const problem = checkTool(tool, source, store.get(tokenAtom) !== null);
  if (problem !== null) return { problem };
  const { id } = await api.post<{ id: string }>(TOOL_PATHS[tool], toolRequest(tool, source, DEFAULT_TOOL_OPTIONS));
  store.set(trackTaskAtom, id);
  return { id };
}
