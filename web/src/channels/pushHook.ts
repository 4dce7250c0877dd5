// Frame 12 (an IM message) and frame 13 `channel.members` into the channel atoms. Free of imports from
// app/services so that services.ts can wire it into the socket's onPush.
import { accountAtom } from '../account/atoms';
import type { PushFrame } from '../socket/frames';
import { FrameType } from '../socket/frames';
import { appStore } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import { recentFramesAtom } from '../socket/atoms';
import {
  channelListStaleAtom,
  channelLogsAtom,
  channelsAtom,
  membersStaleAtom,
  openChannelAtom,
  unreadAtom,
} from './atoms';
import { applyPush, countPush, EMPTY_LOG, parseMessage } from './model';
import { membersNoticeChannel } from './shared';

/** A member list changed: the joined list and the open channel's members are read again. */
function membersChanged(store: AppStore): void {
  store.set(channelListStaleAtom, (n) => n + 1);
  store.set(membersStaleAtom, (n) => n + 1);
}

/** Set once frame 13 reaches {@link applyChannelFrame}: the frame-log fallback then stands down. */
let noticesDirect = false;

/** Applies one pushed frame to `store`'s channel atoms; other frame types are ignored. */
export function applyChannelFrame(store: AppStore, frame: PushFrame): void {
  if (frame.type === FrameType.Notification) {
    noticesDirect = true;
    if (membersNoticeChannel(frame.content) !== null) membersChanged(store);
    return;
  }
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

/**
 * Until app/services.ts hands frame 13 to {@link channelPushHook}, the
 * socket's frame log still says a notification came: the joined list and the
 * loaded member lists are read again. Answers the unsubscribe function.
 */
export function watchMemberNotices(store: AppStore = appStore): () => void {
  let last = store.get(recentFramesAtom)[0]?.id ?? 0;
  return store.sub(recentFramesAtom, () => {
    const log = store.get(recentFramesAtom);
    const fresh = log.filter((e) => e.id > last);
    if (log[0]) last = Math.max(last, log[0].id);
    if (!noticesDirect && fresh.some((e) => e.type === FrameType.Notification)) membersChanged(store);
  });
}
