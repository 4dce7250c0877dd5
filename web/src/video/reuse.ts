// "Reuse" of a video task and the video tools run from a result's action
// bar, over the app's store: reuse asks `get-meta-info` for the task's
// create payload and opens the video page on the tab it restores to, its
// form filled from the payload (restore.ts); when that call fails, from the
// task view. A tool button creates the tool's task on the result with
// parent_task_id.
import { tokenAtom } from '../account/atoms';
import type { ApiClient } from '../api/client';
import { fetchVideoMetaInfo, fetchVideoParams } from '../api/video';
import type { VideoParams } from '../api/video';
import type { ImageInput } from '../generator/config';
import { paymentInfoAtom, roleAtom } from '../generator/atoms';
import { localePath } from '../router/locale';
import { localeAtom, navigate, routeAtom } from '../router/router';
import type { AppStore } from '../state/jotai';
import { trackTaskAtom } from '../tasks/atoms';
import type { Task } from '../tasks/types';
import { videoConfigsAtom, videoParamsAtom, videoPartAtom, videoProblemAtom, videoTabAtom } from './atoms';
import { readVideoMeta } from './cover';
import type { VideoCaller, VideoConfig, VideoTab } from './model';
import type { VideoOutput } from './player';
import { metaInfoTab, payloadConfig, payloadImageUrls, restoredConfig, taskRestoreTab } from './restore';
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

/** A task's tab and the form restored into it; tab null: the task restores to none. */
type Restored = { tab: VideoTab; config: VideoConfig } | { tab: null };

/** The restored form of `task` and its tab, from its create payload; null when the call fails. */
async function fromPayload(store: AppStore, api: Pick<ApiClient, 'post'>, params: VideoParams, task: Task): Promise<Restored | null> {
  let info;
  try {
    info = await fetchVideoMetaInfo(api, task.id);
  } catch {
    return null;
  }
  const tab = metaInfoTab(params, info);
  if (tab === null) return { tab };
  const urls = [...new Set(payloadImageUrls(info.payload))];
  const pictures = new Map((await Promise.all(urls.map(pictureOf))).map((p) => [p.url, p]));
  return { tab, config: payloadConfig(tab, info.payload, pictures, params, callerOf(store)) };
}

/** The restored form of `task` and its tab, from the task view (prompt, size, count, seed, pictures). */
async function fromTaskView(store: AppStore, params: VideoParams, task: Task): Promise<Restored> {
  const tab = taskRestoreTab(params, task);
  if (tab === null) return { tab };
  const images = await Promise.all(task.preprocess_images.map(pictureOf));
  return { tab, config: restoredConfig(tab, task, images, params, callerOf(store)) };
}

/**
 * Restores `task` into the video form (§4 "restoring a task"): everything
 * its create payload carries (`get-meta-info`), or what the task view
 * carries when that call fails; answers the tab it opened, or null when the
 * task restores to none (tools, images).
 */
export async function reuseVideoTask(store: AppStore, api: Pick<ApiClient, 'post'>, task: Task): Promise<VideoTab | null> {
  const params = await videoParams(store, api);
  const restored = (await fromPayload(store, api, params, task)) ?? (await fromTaskView(store, params, task));
  if (restored.tab === null) return null;
  const { tab, config } = restored;
  store.set(videoConfigsAtom, (all) => ({ ...all, [tab]: config }));
  store.set(videoTabAtom, tab);
  store.set(videoPartAtom, 'generate');
  store.set(videoProblemAtom, null);
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
