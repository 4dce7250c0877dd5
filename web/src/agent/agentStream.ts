// Sends one message to the generation agent and streams the reply
// (`POST /api/stream/task/gen-agent/conv`, spec 3 §7), with the retries of
// spec 2 §4 / spec 3 §4: 1000 ms apart, at most 3.
//
// What is retried: only a failure of the transport before any delta arrived
// — the request did not reach the server or got no stream (network error,
// an HTTP 5xx without an envelope), or the stream closed or broke off with
// no delta. An error event or an error envelope (a status code such as
// NeedLogin or LanguageModelUnavailable) is the server's answer and is not
// retried; neither is a failure after a delta, since resending would start
// the reply again — the partial reply stays and the error is shown.
import { parseAgentEvent } from './chat';
import { isAbort, readSse, StreamError, StreamStatusError } from './sse';
import type { SseEvent } from './sse';

export const AGENT_STREAM_PATH = '/api/stream/task/gen-agent/conv';
export const RETRY_DELAY_MS = 1000;
export const MAX_RETRIES = 3;
/** The safety scene of the gen-agent call (spec 3 §7). */
export const SAFE_SCENE = 52;

export interface AgentMessagePart {
  role: 'user';
  content_type: 'text' | 'image';
  parts: string[];
  image_url: string;
}

export interface AgentRequest {
  conv_id: string;
  parent_msg_id: string;
  seg_id: string;
  start_new_topic: boolean;
  messages: AgentMessagePart[];
  biz_param: { curr_base_model_name: string; duration: number; task_type: string; conv_type: number };
  safe_scene: number;
}

/** The user's message as the request's `messages`: the text part, then the image part when attached. */
export function requestMessages(text: string, imageUrl: string | null): AgentMessagePart[] {
  const out: AgentMessagePart[] = [];
  if (text !== '') out.push({ role: 'user', content_type: 'text', parts: [text], image_url: '' });
  if (imageUrl) out.push({ role: 'user', content_type: 'image', parts: [], image_url: imageUrl });
  return out;
}

/** The reply's failure: the server's code and key, or a transport failure (code 0). */
export class AgentStreamError extends Error {
  readonly code: number;
  readonly key: string | null;
  readonly msg: string;
  constructor(code: number, key: string | null, msg: string) {
    super(`${code} ${key ?? ''} ${msg}`.trim());
    this.name = 'AgentStreamError';
    this.code = code;
    this.key = key;
    this.msg = msg;
  }
}

export type OpenStream = (body: AgentRequest, onEvent: (e: SseEvent) => boolean | void, signal: AbortSignal) => Promise<void>;

export function fetchAgentStream(headers: () => Record<string, string>, fetchFn?: typeof fetch): OpenStream {
  return (body, onEvent, signal) =>
    readSse(AGENT_STREAM_PATH, onEvent, { method: 'POST', body, headers: headers(), signal, ...(fetchFn ? { fetch: fetchFn } : {}) });
}

export interface SendOptions {
  open: OpenStream;
  signal: AbortSignal;
  onDelta: (msgId: string, delta: string) => void;
  /** Called before each retry (1-based), after the delay. */
  onRetry?: (attempt: number) => void;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  retryDelayMs?: number;
  maxRetries?: number;
}

export function sleepMs(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new DOMException('aborted', 'AbortError'));
      return;
    }
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new DOMException('aborted', 'AbortError'));
      },
      { once: true },
    );
  });
}

function retryable(e: unknown): boolean {
  if (e instanceof StreamStatusError) return false;
  if (e instanceof StreamError) return e.httpStatus === 0 || e.httpStatus >= 500;
  return false;
}

/** Sends `body`; resolves with the reply's msg_id once `done` arrives. */
export async function sendAgentMessage(body: AgentRequest, options: SendOptions): Promise<string> {
  const { open, signal, onDelta } = options;
  const sleep = options.sleep ?? sleepMs;
  const delay = options.retryDelayMs ?? RETRY_DELAY_MS;
  const maxRetries = options.maxRetries ?? MAX_RETRIES;
  for (let attempt = 0; ; attempt++) {
    let gotDelta = false;
    let doneId: string | null = null;
    let failure: AgentStreamError | null = null;
    try {
      await open(
        body,
        (e) => {
          const ev = parseAgentEvent(e.data);
          if (ev === null) return true;
          if (ev.kind === 'error') {
            failure = new AgentStreamError(ev.code, ev.key, ev.msg);
            return false;
          }
          if (ev.delta !== '') {
            gotDelta = true;
            onDelta(ev.msgId, ev.delta);
          }
          if (ev.done) {
            doneId = ev.msgId;
            return false;
          }
          return true;
        },
        signal,
      );
      if (failure) throw failure;
      if (doneId !== null) return doneId;
      // Closed without `done`.
      if (gotDelta || attempt >= maxRetries) throw new AgentStreamError(0, 'NetworkError', 'the reply stream closed early');
    } catch (e) {
      if (isAbort(e) || e instanceof AgentStreamError) throw e;
      if (e instanceof StreamStatusError) throw new AgentStreamError(e.code, e.key, e.msg);
      if (gotDelta || !retryable(e) || attempt >= maxRetries) throw new AgentStreamError(0, 'NetworkError', String(e));
    }
    await sleep(delay, signal);
    options.onRetry?.(attempt + 1);
  }
}
