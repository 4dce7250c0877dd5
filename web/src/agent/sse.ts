// A small Server-Sent Events reader for streams fetched with `fetch`
// (EventSource cannot send the `token` header). `SseParser` is pure: it
// takes text in arbitrary chunks (a chunk may end inside a line, or between
// the CR and LF of one line ending) and returns the whole events so far, per
// the HTML standard's event-stream rules: `data:` lines join with "\n", a
// blank line dispatches, lines starting with ":" are comments, one space
// after the colon is dropped, an event with no data is not dispatched.

/** One dispatched event. `event` is "message" unless the stream named it. */
export interface SseEvent {
  event: string;
  data: string;
  id: string | null;
}

export class SseParser {
  /** Text of the line not yet ended. */
  private partial = '';
  /** The last chunk ended with CR: an LF starting the next one belongs to it. */
  private afterCr = false;
  private data: string[] = [];
  private eventName = '';
  private lastId: string | null = null;

  /** Feeds a chunk of text; returns the events it completed. */
  push(chunk: string): SseEvent[] {
    let text = chunk;
    if (this.afterCr && text.startsWith('\n')) text = text.slice(1);
    this.afterCr = false;
    const out: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c !== '\n' && c !== '\r') continue;
      const line = this.partial + text.slice(start, i);
      this.partial = '';
      if (c === '\r') {
        if (i + 1 < text.length) {
          if (text[i + 1] === '\n') i++;
        } else {
          this.afterCr = true;
        }
      }
      start = i + 1;
      const event = this.line(line);
      if (event) out.push(event);
    }
    this.partial += text.slice(start);
    return out;
  }

  /**
   * The stream ended. Per the standard an event not followed by a blank line
   * is discarded; nothing is returned, and the parser is ready for a new stream.
   */
  end(): SseEvent[] {
    this.partial = '';
    this.afterCr = false;
    this.data = [];
    this.eventName = '';
    return [];
  }

  private line(line: string): SseEvent | null {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.eventName = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastId = value;
        break;
      default:
        // `retry` and unknown fields are ignored: reconnection is the caller's.
        break;
    }
    return null;
  }

  private dispatch(): SseEvent | null {
    const hadData = this.data.length > 0;
    const event: SseEvent = { event: this.eventName || 'message', data: this.data.join('\n'), id: this.lastId };
    this.data = [];
    this.eventName = '';
    return hadData ? event : null;
  }
}

/** The stream failed (network, an HTTP error without an envelope, the body broke off). */
export class StreamError extends Error {
  readonly httpStatus: number;
  constructor(message: string, httpStatus = 0) {
    super(message);
    this.name = 'StreamError';
    this.httpStatus = httpStatus;
  }
}

/** The server answered with an error envelope instead of an event stream. */
export class StreamStatusError extends Error {
  readonly code: number;
  readonly key: string | null;
  readonly msg: string;
  readonly httpStatus: number;
  constructor(code: number, key: string | null, msg: string, httpStatus: number) {
    super(`${code} ${key ?? ''} ${msg}`.trim());
    this.name = 'StreamStatusError';
    this.code = code;
    this.key = key;
    this.msg = msg;
    this.httpStatus = httpStatus;
  }
}

/** Reads a `{status: {code, key, msg}}` envelope from a body that is not an event stream. */
async function envelopeError(response: Response): Promise<Error> {
  try {
    const v: unknown = await response.json();
    const status = typeof v === 'object' && v !== null ? (v as { status?: unknown }).status : undefined;
    if (typeof status === 'object' && status !== null) {
      const s = status as { code?: unknown; key?: unknown; msg?: unknown };
      const code = typeof s.code === 'string' ? Number(s.code) : s.code;
      if (typeof code === 'number' && Number.isFinite(code)) {
        return new StreamStatusError(code, typeof s.key === 'string' ? s.key : null, typeof s.msg === 'string' ? s.msg : '', response.status);
      }
    }
  } catch {
    // Not JSON either.
  }
  return new StreamError(`HTTP ${response.status}`, response.status);
}

export function isAbort(e: unknown): boolean {
  return e instanceof DOMException && e.name === 'AbortError';
}

export interface OpenSseOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

/**
 * Fetches `url` and hands each event to `onEvent` until the body ends (the
 * promise resolves) or fails: StreamStatusError when the server answered an
 * error envelope instead of a `text/event-stream`, StreamError for the rest,
 * the AbortError on abort. `onEvent` returning `false` stops reading.
 */
export async function readSse(url: string, onEvent: (e: SseEvent) => boolean | void, options: OpenSseOptions = {}): Promise<void> {
  const fetchFn = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const headers: Record<string, string> = { Accept: 'text/event-stream', ...(options.headers ?? {}) };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetchFn(url, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? null : JSON.stringify(options.body),
      credentials: 'same-origin',
      cache: 'no-store',
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (e) {
    if (isAbort(e)) throw e;
    throw new StreamError('network error');
  }
  const type = response.headers.get('Content-Type') ?? '';
  if (!response.ok || response.body === null || !type.includes('text/event-stream')) {
    throw await envelopeError(response);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        if (isAbort(e) || options.signal?.aborted) throw new DOMException('aborted', 'AbortError');
        throw new StreamError('stream interrupted', response.status);
      }
      const text = chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      for (const event of parser.push(text)) {
        if (onEvent(event) === false) return;
      }
      if (chunk.done) {
        parser.end();
        return;
      }
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}
