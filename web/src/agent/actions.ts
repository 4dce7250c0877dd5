// The agent panel's actions: load conversations, presets and the config,
// open a conversation, send a message and stream the reply. Plain code over
// the app store (the components only call these and render atoms).
import { loginDialogAtom } from '../account/atoms';
import { isApiError } from '../api/client';
import { api } from '../app/services';
import { isMessageKey } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import { appStore } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import { agentApi } from './api';
import { AgentStreamError, fetchAgentStream, MAX_RETRIES, RETRY_DELAY_MS, requestMessages, SAFE_SCENE, sendAgentMessage } from './agentStream';
import type { AgentRequest } from './agentStream';
import {
  agentConfigAtom,
  agentConvIdAtom,
  agentConvsAtom,
  agentHistoryLoadingAtom,
  agentMessagesAtom,
  agentPresetsAtom,
  agentProblemAtom,
  agentRetryAtom,
  agentSendingAtom,
} from './atoms';
import { applyDelta, chatMessage, finishReply, fromHistoryItems, lastServerId } from './chat';
import { generatorContext } from './generatorLink';
import { streamHeaders } from './headers';

const NEED_LOGIN = 20000;
/** Title of a new conversation: the start of its first message. */
const TITLE_CHARS = 48;

export const calls = agentApi(api);

/** A failure as a message: a server key we can translate, else its text, else the network key. */
export function problemOf(e: unknown): ErrorMessage {
  const key = e instanceof AgentStreamError || isApiError(e) ? e.key : null;
  if (key !== null && !key.includes('.') && isMessageKey(key)) return { key };
  const msg = e instanceof AgentStreamError || isApiError(e) ? e.msg.trim() : '';
  if (msg !== '' && !(e instanceof AgentStreamError && e.code === 0)) return { text: msg };
  return { key: 'NetworkError' };
}

function isNeedLogin(e: unknown): boolean {
  return (e instanceof AgentStreamError || isApiError(e)) && e.code === NEED_LOGIN;
}

function fail(store: AppStore, e: unknown): void {
  if (isNeedLogin(e)) store.set(loginDialogAtom, { open: true, step: 'login' });
  store.set(agentProblemAtom, problemOf(e));
}

/** Loads the conversations, the presets and the config (each once per visit; failures shown). */
export async function loadAgent(store: AppStore = appStore): Promise<void> {
  store.set(agentProblemAtom, null);
  await Promise.all([
    calls.convs().then((items) => store.set(agentConvsAtom, [...items].sort((a, b) => b.update_at - a.update_at))),
    calls.presets().then((items) => store.set(agentPresetsAtom, items)),
    calls.config().then((c) => store.set(agentConfigAtom, c)),
  ]).catch((e: unknown) => fail(store, e));
}

let running: AbortController | null = null;
let historyLoad = 0;

/** Stops the reply being streamed (the page leaves, or the user presses Stop). */
export function stopAgent(): void {
  running?.abort();
  running = null;
}

/** Opens a conversation and loads its history. */
export async function openConv(convId: string, store: AppStore = appStore): Promise<void> {
  stopAgent();
  const load = ++historyLoad;
  store.set(agentConvIdAtom, convId);
  store.set(agentMessagesAtom, []);
  store.set(agentProblemAtom, null);
  store.set(agentHistoryLoadingAtom, true);
  try {
    const items = await calls.history(convId);
    if (load === historyLoad) store.set(agentMessagesAtom, fromHistoryItems(items));
  } catch (e) {
    if (load === historyLoad) fail(store, e);
  } finally {
    if (load === historyLoad) store.set(agentHistoryLoadingAtom, false);
  }
}

/** A new conversation: created on the server with its first message. */
export function newConv(store: AppStore = appStore): void {
  stopAgent();
  historyLoad++;
  store.set(agentConvIdAtom, null);
  store.set(agentMessagesAtom, []);
  store.set(agentProblemAtom, null);
  store.set(agentHistoryLoadingAtom, false);
}

let tempIds = 0;

/** Sends the user's text (and image) and streams the reply; ignored while one runs. */
export async function sendToAgent(text: string, imageUrl: string | null, store: AppStore = appStore): Promise<boolean> {
  const content = text.trim();
  if (store.get(agentSendingAtom) || (content === '' && imageUrl === null)) return false;
  store.set(agentSendingAtom, true);
  store.set(agentProblemAtom, null);
  store.set(agentRetryAtom, 0);
  const abort = new AbortController();
  running = abort;
  try {
    let convId = store.get(agentConvIdAtom);
    const isNew = convId === null;
    if (convId === null) {
      convId = await calls.create(content.slice(0, TITLE_CHARS) || undefined);
      if (abort.signal.aborted) return false;
      store.set(agentConvIdAtom, convId);
    }
    const before = store.get(agentMessagesAtom);
    const userMsg = chatMessage({ id: `temp-${++tempIds}`, type: 'user', text: content, timestamp: Date.now(), isTemp: true, imageUrl });
    store.set(agentMessagesAtom, [...before, userMsg]);
    const gen = generatorContext(store);
    const config = store.get(agentConfigAtom);
    const body: AgentRequest = {
      conv_id: convId,
      parent_msg_id: lastServerId(before),
      seg_id: '',
      start_new_topic: isNew,
      messages: requestMessages(content, imageUrl),
      biz_param: { curr_base_model_name: gen.baseModelName, duration: 0, task_type: gen.tab, conv_type: 0 },
      safe_scene: SAFE_SCENE,
    };
    const conv = convId;
    const replyId = await sendAgentMessage(body, {
      open: fetchAgentStream(() => streamHeaders(store)),
      signal: abort.signal,
      retryDelayMs: config?.retry_delay_ms ?? RETRY_DELAY_MS,
      maxRetries: config?.max_retries ?? MAX_RETRIES,
      onDelta: (msgId, delta) => {
        if (store.get(agentConvIdAtom) === conv) store.set(agentMessagesAtom, (ms) => applyDelta(ms, msgId, delta, Date.now()));
      },
      onRetry: (attempt) => store.set(agentRetryAtom, attempt),
    });
    store.set(agentMessagesAtom, (ms) => finishReply(ms, replyId));
    // The server's copy gives the user's message its id; the list gets the new title and order.
    await Promise.all([refreshHistory(conv, store), refreshConvs(store)]);
    return true;
  } catch (e) {
    if (!(e instanceof DOMException && e.name === 'AbortError')) fail(store, e);
    return false;
  } finally {
    if (running === abort) running = null;
    store.set(agentMessagesAtom, (ms) => ms.map((m) => (m.isTemp && m.type === 'assistant' ? { ...m, isTemp: false } : m)));
    store.set(agentSendingAtom, false);
    store.set(agentRetryAtom, 0);
  }
}

async function refreshHistory(convId: string, store: AppStore): Promise<void> {
  try {
    const items = await calls.history(convId);
    if (store.get(agentConvIdAtom) === convId) store.set(agentMessagesAtom, fromHistoryItems(items));
  } catch {
    // The streamed copy stays on screen; the next open reloads it.
  }
}

async function refreshConvs(store: AppStore): Promise<void> {
  try {
    const items = await calls.convs();
    store.set(agentConvsAtom, [...items].sort((a, b) => b.update_at - a.update_at));
  } catch {
    // Keep the list shown.
  }
}
