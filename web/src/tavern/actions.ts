// The chat actions the tavern's components call, on the app's API client and
// store. Every change to a session's log goes through model.ts's reducers.
import { tokenAtom } from '../account/atoms';
import { api } from '../app/services';
import { appStore } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import { MESSAGE_PAGE, TavernApi } from './api';
import { chatLogsAtom } from './atoms';
import {
  addLocalUserMessage,
  EMPTY_LOG,
  ensureReply,
  lastReply,
  mergeList,
  mergeMessage,
  olderCursor,
  patchMessage,
  prependOlder,
  removeMessage,
} from './model';
import type { ChatLog, ChatMessage } from './model';

export const tavernApi = new TavernApi(api, () => appStore.get(tokenAtom));

export function updateLog(sessionId: string, f: (log: ChatLog) => ChatLog, store: AppStore = appStore): void {
  const logs = store.get(chatLogsAtom);
  store.set(chatLogsAtom, { ...logs, [sessionId]: f(logs[sessionId] ?? EMPTY_LOG) });
}

function logOf(sessionId: string, store: AppStore = appStore): ChatLog {
  return store.get(chatLogsAtom)[sessionId] ?? EMPTY_LOG;
}

/** Reads a session's messages (a running reply comes with its text so far). */
export async function loadMessages(sessionId: string, store: AppStore = appStore): Promise<void> {
  const items = await tavernApi.messages(sessionId, MESSAGE_PAGE);
  // A short newest page is the whole history.
  updateLog(sessionId, (log) => (items.length < MESSAGE_PAGE ? { ...mergeList(log, items), olderEnd: true } : mergeList(log, items)), store);
}

/** Reads the page before the oldest message held and puts it in front (nothing when none is held or all is read). */
export async function loadOlder(sessionId: string, store: AppStore = appStore): Promise<void> {
  const before = olderCursor(logOf(sessionId, store));
  if (before === null || before <= 0) {
    updateLog(sessionId, (log) => ({ ...log, olderEnd: true }), store);
    return;
  }
  const items = await tavernApi.messages(sessionId, MESSAGE_PAGE, before);
  updateLog(sessionId, (log) => prependOlder(log, items, MESSAGE_PAGE), store);
}

/** Reads the newest reply's state and keeps only what frames have not delivered; reads the list if a gap remains. */
export async function resumeSession(sessionId: string, store: AppStore = appStore): Promise<void> {
  const latest = await tavernApi.latestState(sessionId);
  if (latest !== null) updateLog(sessionId, (log) => mergeMessage(log, latest), store);
  if (logOf(sessionId, store).gap || (latest !== null && !logOf(sessionId, store).messages.some((m) => m.msg_id === latest.msg_id))) {
    await loadMessages(sessionId, store);
  }
}

let localIds = 0;

/** Sends the user's message and starts the reply; the message shows at once. */
export async function sendMessage(sessionId: string, content: string, store: AppStore = appStore): Promise<void> {
  const localId = `local-${++localIds}`;
  updateLog(sessionId, (log) => addLocalUserMessage(log, content, localId), store);
  let msgId: string;
  try {
    msgId = await tavernApi.startReply(sessionId, { content });
  } catch (e) {
    updateLog(sessionId, (log) => removeMessage(log, localId), store);
    throw e;
  }
  updateLog(sessionId, (log) => ensureReply(log, msgId), store);
  // The user's message gets its server id (and the list any text streamed so far).
  await loadMessages(sessionId, store).catch(() => undefined);
}

/** Replaces the last reply with a new one. */
export async function regenerate(sessionId: string, store: AppStore = appStore): Promise<void> {
  const old = lastReply(logOf(sessionId, store));
  if (old === null) return;
  updateLog(sessionId, (log) => removeMessage(log, old.msg_id), store);
  let msgId: string;
  try {
    msgId = await tavernApi.startReply(sessionId, { regenerate: true });
  } catch (e) {
    updateLog(sessionId, (log) => (log.messages.some((m) => m.msg_id === old.msg_id) ? log : mergeMessage(log, old)), store);
    throw e;
  }
  updateLog(sessionId, (log) => ensureReply(log, msgId), store);
}

/** Extends the last reply (same message, its frames counting on). */
export async function continueReply(sessionId: string, store: AppStore = appStore): Promise<void> {
  const last = lastReply(logOf(sessionId, store));
  if (last === null) return;
  const before: Pick<ChatMessage, 'state' | 'error'> = { state: last.state, error: last.error };
  updateLog(sessionId, (log) => patchMessage(log, last.msg_id, { state: 'streaming', error: null }), store);
  try {
    const msgId = await tavernApi.startReply(sessionId, { continue: true });
    updateLog(sessionId, (log) => ensureReply(log, msgId), store);
  } catch (e) {
    updateLog(sessionId, (log) => patchMessage(log, last.msg_id, before), store);
    throw e;
  }
}

/** Stops the running reply; its partial text stays (state "cancelled" arrives by frame, or is read back). */
export async function stopReply(sessionId: string, store: AppStore = appStore): Promise<void> {
  await tavernApi.stopReply(sessionId);
  const latest = await tavernApi.latestState(sessionId).catch(() => null);
  if (latest !== null && latest.state !== 'streaming') updateLog(sessionId, (log) => mergeMessage(log, latest), store);
}

export async function editMessage(sessionId: string, msgId: string, content: string, store: AppStore = appStore): Promise<void> {
  await tavernApi.editMessage(sessionId, msgId, content);
  updateLog(sessionId, (log) => patchMessage(log, msgId, { content }), store);
}

export async function deleteMessage(sessionId: string, msgId: string, store: AppStore = appStore): Promise<void> {
  await tavernApi.deleteMessage(sessionId, msgId);
  updateLog(sessionId, (log) => removeMessage(log, msgId), store);
}

export async function likeMessage(sessionId: string, msg: ChatMessage, like: -1 | 1, store: AppStore = appStore): Promise<void> {
  const next = msg.liked === like ? 0 : like;
  await tavernApi.likeMessage(sessionId, msg.msg_id, next);
  updateLog(sessionId, (log) => patchMessage(log, msg.msg_id, { liked: next }), store);
}
