// Frame 11 (a streamed chat reply) into the tavern's atoms. Free of imports
// from app/services so that services.ts can wire it into the socket's onPush.
import type { PushFrame } from '../socket/frames';
import { FrameType } from '../socket/frames';
import { socketStateAtom } from '../socket/atoms';
import type { SocketState } from '../socket/atoms';
import { appStore } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import { chatLogsAtom, chatResyncAtom, openSessionAtom, sessionBadgesAtom, sessionListStaleAtom } from './atoms';
import { applyFrame, EMPTY_LOG, parseStreamFrame } from './model';
import { applySpeechFrame } from './speech';

/**
 * Applies one pushed frame to `store`'s chat logs; other kinds are ignored.
 * A frame for the open session (or one whose log is loaded) goes into its
 * log; for other sessions a finished reply only raises that session's badge.
 * A finished reply in the open session asks for the server's copy of it.
 */
export function applyTavernFrame(store: AppStore, pushed: PushFrame): void {
  if (pushed.type !== FrameType.ChatStream) return;
  const frame = parseStreamFrame(pushed.content);
  if (frame === null) return;
  const open = store.get(openSessionAtom);
  const logs = store.get(chatLogsAtom);
  const log = logs[frame.session_id] ?? (frame.session_id === open ? EMPTY_LOG : null);
  if (log !== null) {
    const next = applyFrame(log, frame);
    if (next !== log) store.set(chatLogsAtom, { ...logs, [frame.session_id]: next });
    if (next.gap && !log.gap && next.loaded && frame.session_id === open) store.set(chatResyncAtom, (n) => n + 1);
  }
  if (frame.done) {
    // The finished message is read back once: it brings what frames do not carry (the model's name).
    if (frame.session_id === open) store.set(chatResyncAtom, (n) => n + 1);
    if (frame.session_id !== open) {
      const badges = store.get(sessionBadgesAtom);
      store.set(sessionBadgesAtom, { ...badges, [frame.session_id]: (badges[frame.session_id] ?? 0) + 1 });
    }
    store.set(sessionListStaleAtom, (n) => n + 1);
  }
}

/** Pass to the socket client's push dispatcher (frame 11, and frame 13's spoken replies). */
export function tavernPushHook(frame: PushFrame): void {
  applyTavernFrame(appStore, frame);
  applySpeechFrame(appStore, frame);
}

/** After a resume that lost frames: the open session reads its newest reply again. */
export function applyTavernResync(store: AppStore): void {
  store.set(chatResyncAtom, (n) => n + 1);
}

/** Pass to the socket client's resync dispatcher. */
export function tavernResyncHook(): void {
  applyTavernResync(appStore);
}

/**
 * Each time the socket comes (back) online, the open session reads its newest
 * reply again: frames sent while no socket was authenticated are gone (a
 * reconnect, or a page loaded mid-reply before its socket was up). Answers
 * the unsubscribe function.
 */
export function watchReconnects(store: AppStore = appStore): () => void {
  let previous: SocketState = store.get(socketStateAtom);
  return store.sub(socketStateAtom, () => {
    const state = store.get(socketStateAtom);
    if (state === 'online' && previous !== 'online') store.set(chatResyncAtom, (n) => n + 1);
    previous = state;
  });
}
