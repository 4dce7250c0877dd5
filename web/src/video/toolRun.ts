// The video tools' state and actions over the app's store: the one video
// upload (kept in memory for a retry), its cover and metadata read in the
// browser, the chosen tool, source and options, and the tool press
// (checked, posted, tracked; the server's key shown like the generate bar's).
import { loginDialogAtom } from '../account/atoms';
import { isApiError } from '../api/client';
import type { ApiClient } from '../api/client';
import { rechargeOpenAtom, vipPopupAtom } from '../mall/atoms';
import { COINS_NOT_ENOUGH, isMemberOnlyKey } from '../mall/errors';
import { atom } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import type { VideoShownProblem } from './atoms';
import { EMPTY_COVER, captureCover, readVideoMeta } from './cover';
import type { Cover } from './cover';
import { DEFAULT_TOOL_OPTIONS, TOOL_PATHS, checkTool, toolRequest } from './tools';
import type { ToolOptions, VideoSource, VideoTool } from './tools';
import { INITIAL_UPLOAD, VideoUploader } from './upload';
import type { UploadState } from './upload';

/** The upload's state (§4). */
export const videoUploadAtom = atom<UploadState>(INITIAL_UPLOAD);
/** The picked file's cover (§4 cover capture), or null before one is picked. */
export const videoCoverAtom = atom<Cover | null>(null);
export const videoToolAtom = atom<VideoTool>('upscale');
/** Where the source comes from: an upload or the user's earlier videos. */
export const videoSourceKindAtom = atom<'upload' | 'task'>('upload');
export const videoToolSourceAtom = atom<VideoSource | null>(null);
/** The finished upload as a source (the source again when going back to "upload"). */
export const videoUploadedAtom = atom<VideoSource | null>(null);
export const videoToolOptionsAtom = atom<ToolOptions>(DEFAULT_TOOL_OPTIONS);
export const videoToolBusyAtom = atom(false);
export const videoToolProblemAtom = atom<VideoShownProblem | null>(null);

/** Code of NeedLogin. */
const NEED_LOGIN = 20000;

let uploader: VideoUploader | null = null;
let localUrl: string | null = null;

/** The page's one uploader, writing its states to {@link videoUploadAtom}. */
export function videoUploader(store: AppStore, api: Pick<ApiClient, 'post'>): VideoUploader {
  uploader ??= new VideoUploader({ api }, (s) => store.set(videoUploadAtom, s));
  return uploader;
}

/**
 * Uploads a picked video; its cover and metadata are read from the local
 * file meanwhile. Ignored while an upload runs (§5). On success the upload
 * becomes the tools' source.
 */
export async function uploadVideo(store: AppStore, api: Pick<ApiClient, 'post'>, file: File): Promise<string | null> {
  const up = videoUploader(store, api);
  if (up.current.status === 'pending') return null;
  if (localUrl !== null) URL.revokeObjectURL(localUrl);
  const local = URL.createObjectURL(file);
  localUrl = local;
  store.set(videoCoverAtom, null);
  store.set(videoToolSourceAtom, null);
  store.set(videoUploadedAtom, null);
  store.set(videoToolProblemAtom, null);
  const meta = readVideoMeta(local).catch(() => ({ width: 0, height: 0, duration: 0 }));
  void captureCover(local)
    .catch(() => EMPTY_COVER)
    .then((c) => {
      if (localUrl === local) store.set(videoCoverAtom, c);
    });
  const url = await up.start(file, file.name);
  return url === null ? null : takeUpload(store, url, file.name, await meta);
}

/** Resumes a failed upload (§8 retry from the last confirmed part). */
export async function retryVideoUpload(store: AppStore, api: Pick<ApiClient, 'post'>): Promise<string | null> {
  const up = videoUploader(store, api);
  const name = up.current.fileName;
  const url = await up.retry();
  if (url === null) return null;
  const meta = localUrl ? await readVideoMeta(localUrl).catch(() => ({ width: 0, height: 0, duration: 0 })) : { width: 0, height: 0, duration: 0 };
  return takeUpload(store, url, name, meta);
}

/** §4: a refresh while in error clears the upload. */
export function refreshVideoUpload(store: AppStore, api: Pick<ApiClient, 'post'>): void {
  videoUploader(store, api).refresh();
  if (store.get(videoUploadAtom).status === 'init') {
    store.set(videoCoverAtom, null);
    store.set(videoUploadedAtom, null);
  }
}

function takeUpload(store: AppStore, url: string, name: string, meta: { width: number; height: number; duration: number }): string {
  const source: VideoSource = { kind: 'upload', url, name, ...meta };
  store.set(videoUploadedAtom, source);
  if (store.get(videoSourceKindAtom) === 'upload') store.set(videoToolSourceAtom, source);
  return url;
}

/** Shows a problem key and opens what it calls for. */
function show(store: AppStore, key: string, text = ''): void {
  if (key === 'NeedLogin') store.set(loginDialogAtom, { open: true, step: 'login' });
  if (key === 'CoinsNotEnough') store.set(rechargeOpenAtom, true);
  if (isMemberOnlyKey(key)) store.set(vipPopupAtom, { open: true, reason: 'member-only' });
  store.set(videoToolProblemAtom, { key, text });
}

/** The key of a failed call (the server's, CoinsNotEnough, NeedLogin or NetworkError), and its text. */
export function failureOf(e: unknown): VideoShownProblem {
  if (isApiError(e)) {
    const key = e.code === COINS_NOT_ENOUGH ? 'CoinsNotEnough' : e.code === NEED_LOGIN ? 'NeedLogin' : e.key;
    return { key, text: e.msg };
  }
  return { key: 'NetworkError', text: '' };
}

export interface ToolPress {
  store: AppStore;
  api: Pick<ApiClient, 'post'>;
  tool: VideoTool;
  source: VideoSource | null;
  options: ToolOptions;
  loggedIn: boolean;
  onCreated: (id: string) => void;
}

/** One tool press: ignored while one runs; answers the new task id, or null (the problem shown). */
export async function runVideoTool(p: ToolPress): Promise<string | null> {
  const { store } = p;
  if (store.get(videoToolBusyAtom)) return null;
  if (store.get(videoUploadAtom).status === 'pending' && store.get(videoSourceKindAtom) === 'upload') {
    store.set(videoToolProblemAtom, { key: 'videoUploadingWait', text: '' });
    return null;
  }
  const problem = checkTool(p.tool, p.source, p.loggedIn);
  if (problem !== null || p.source === null) {
    show(store, problem ?? 'videoSourceMissing');
    return null;
  }
  store.set(videoToolProblemAtom, null);
  store.set(videoToolBusyAtom, true);
  try {
    const { id } = await p.api.post<{ id: string }>(TOOL_PATHS[p.tool], toolRequest(p.tool, p.source, p.options));
    p.onCreated(id);
    return id;
  } catch (e) {
    const f = failureOf(e);
    if (f.key !== null) show(store, f.key, f.text);
    else store.set(videoToolProblemAtom, f);
    return null;
  } finally {
    store.set(videoToolBusyAtom, false);
  }
}
