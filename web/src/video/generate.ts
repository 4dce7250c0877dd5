// The video generate press: ignored while generating; checked like the
// server would (spec 2 §5); posted to the tab's call (§7); on success the
// task handed to the task list; on failure the server's key shown
// (NeedLogin opens the login popup, CoinsNotEnough the recharge dialog, a
// member-only key such as videoQualityMemberOnly or TaskQueueFull the VIP
// pop-up).
import { loginDialogAtom } from '../account/atoms';
import { isApiError } from '../api/client';
import type { ApiClient } from '../api/client';
import { createVideo } from '../api/video';
import type { VideoParams } from '../api/video';
import { rechargeOpenAtom, vipPopupAtom } from '../mall/atoms';
import { COINS_NOT_ENOUGH, isMemberOnlyKey } from '../mall/errors';
import type { AppStore } from '../state/jotai';
import { uploadingFor } from '../generator/generate';
import { uploadsAtom } from '../generator/atoms';
import { videoGeneratingAtom, videoProblemAtom } from './atoms';
import { buildVideoRequest, checkVideo, videoCallPath } from './model';
import type { VideoCaller, VideoConfig, VideoTab } from './model';

/** Code of NeedLogin. */
const NEED_LOGIN = 20000;

/** Upload slots of a tab: `video:{tab}:{slot}`. */
export function uploadPrefix(tab: VideoTab): string {
  return `video:${tab}`;
}

export interface VideoGenerateDeps {
  store: AppStore;
  api: Pick<ApiClient, 'post'>;
  params: VideoParams;
  caller: VideoCaller;
  tab: VideoTab;
  config: VideoConfig;
  onCreated: (id: string) => void;
}

/** Shows a problem key and opens what it calls for. */
function show(store: AppStore, key: string, text = ''): void {
  if (key === 'NeedLogin') store.set(loginDialogAtom, { open: true, step: 'login' });
  if (key === 'CoinsNotEnough') store.set(rechargeOpenAtom, true);
  if (isMemberOnlyKey(key)) store.set(vipPopupAtom, { open: true, reason: 'member-only' });
  store.set(videoProblemAtom, { key, text });
}

/** Runs one generate press; answers the new task id, or null. */
export async function generateVideo(deps: VideoGenerateDeps): Promise<string | null> {
  const { store, api, params, caller, tab, config } = deps;
  if (store.get(videoGeneratingAtom)) return null;
  if (uploadingFor(store.get(uploadsAtom), uploadPrefix(tab))) {
    store.set(videoProblemAtom, { key: 'uploadingWaitTip', text: '' });
    return null;
  }
  const problem = checkVideo(tab, config, params, caller);
  if (problem) {
    show(store, problem);
    return null;
  }
  store.set(videoProblemAtom, null);
  store.set(videoGeneratingAtom, true);
  try {
    const { id } = await createVideo(api, videoCallPath(tab), buildVideoRequest(tab, config, params, caller));
    deps.onCreated(id);
    return id;
  } catch (e) {
    if (isApiError(e)) {
      const key = e.code === COINS_NOT_ENOUGH ? 'CoinsNotEnough' : e.code === NEED_LOGIN ? 'NeedLogin' : e.key;
      if (key !== null) show(store, key, e.msg);
      else store.set(videoProblemAtom, { key: null, text: e.msg });
    } else {
      store.set(videoProblemAtom, { key: 'NetworkError', text: '' });
    }
    return null;
  } finally {
    store.set(videoGeneratingAtom, false);
  }
}
