// Frame 12 (an IM message) into the channel atoms. Free of imports from
// app/services so that services.ts can wire it into the socket's onPush.
import { accountAtom } from '../account/atoms';
import type { PushFrame } from '../socket/frames';
import { FrameType } from '../socket/frames';
import { appStore } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import { channelListStaleAtom, channelLogsAtom, channelsAtom, openChannelAtom, unreadAtom } from './atoms';
import { applyPush, countPush, EMPTY_LOG, parseMessage } from './model';

/** Applies one pushed frame to `store`'s channel atoms; other frame types are ignored. */
export function applyChannelFrame(store: AppStore, frame: PushFrame): void {
  if (frame.type !== FrameType.ImMessage) return;
  const msg = parseMessage(frame.content);
  if (msg === null) return;
  const logs = store.get(channelLogsAtom);
  store.set(channelLogsAtom, { ...logs, [msg.channel_id]: applyPush(logs[msg.channel_id] ?? EMPTY_LOG, msg) });
  const me = store.get(accountAtom)?.id ?? null;
  store.set(unreadAtom, countPush(store.get(unreadAtom), msg, { openChannel: store.get(openChannelAtom), me }));
  const channels = store.get(channelsAtom);
  if (channels !== null && !channels.some((c) => c.channel_id === msg.channel_id)) {
    store.set(channelListStaleAtom, (n) => n + 1);
  }
}

/** Pass to the socket client's push dispatcher for frame 12. */
export function channelPushHook(frame: PushFrame): void {
  applyChannelFrame(appStore, frame);
}

/** After a resume that lost frames: every loaded channel re-reads its newest page, and the list is read again. */
export function applyChannelResync(store: AppStore): void {
  const logs = store.get(channelLogsAtom);
  const next: Record<string, (typeof logs)[string]> = {};
  for (const [id, log] of Object.entries(logs)) next[id] = log.loaded ? { ...log, gap: true } : log;
  store.set(channelLogsAtom, next);
  store.set(channelListStaleAtom, (n) => n + 1);
}

/** Pass to the socket client's resync dispatcher. */
export function channelResyncHook(): void {
  applyChannelResync(appStore);
}
