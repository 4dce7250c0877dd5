// The audio download event stream (spec 2 §7): `GET /api/stream/audio?url=`
// answers `chunk` events with base64 `audioData` (or `data.audioData`), then
// `end`; the pieces are joined into one audio/aac Blob. Any failure is the
// spec's "Error fetching audio chunks for download".
import { TOKEN_HEADER } from '../api/client';
import { SseParser } from '../agent/sse';
import { AUDIO_BLOB_TYPE, AUDIO_ERRORS, AUDIO_PATHS } from './upload';

/** The base64 piece of one `chunk` event: `{audioData}` or `{data: {audioData}}`. */
export function chunkData(json: unknown): string | null {
  if (typeof json !== 'object' || json === null) return null;
  const o = json as { audioData?: unknown; data?: { audioData?: unknown } | null };
  if (typeof o.audioData === 'string') return o.audioData;
  if (typeof o.data === 'object' && o.data !== null && typeof o.data.audioData === 'string') return o.data.audioData;
  return null;
}

/** Bytes of a base64 string. */
export function base64Bytes(b64: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** The stream path of a stored file's URL (absolute or `/files/...`). */
export function streamPath(url: string): string {
  return `${AUDIO_PATHS.stream}?url=${encodeURIComponent(url)}`;
}

export interface DownloadDeps {
  fetch?: typeof fetch;
  token: string | null;
  baseUrl?: string;
  signal?: AbortSignal;
}

/**
 * Downloads an audio file through the event stream; answers one audio/aac
 * Blob of every chunk in order. Any failure (an envelope instead of the
 * stream, an `error` event, a bad chunk, no `end`) throws
 * "Error fetching audio chunks for download".
 */
export async function downloadAudio(url: string, deps: DownloadDeps): Promise<Blob> {
  const f = deps.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const fail = () => new Error(AUDIO_ERRORS.download);
  const headers: Record<string, string> = { Accept: 'text/event-stream' };
  if (deps.token) headers[TOKEN_HEADER] = deps.token;
  let response: Response;
  try {
    response = await f(`${deps.baseUrl ?? ''}${streamPath(url)}`, {
      method: 'GET',
      headers,
      credentials: 'same-origin',
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
  } catch {
    throw fail();
  }
  if (!response.ok || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) throw fail();
  const parser = new SseParser();
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let ended = false;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const ev of parser.push(value)) {
        if (ev.event === 'end') {
          ended = true;
          continue;
        }
        if (ev.event === 'error') throw fail();
        if (ev.event !== 'chunk' && ev.event !== 'message') continue;
        let piece: string | null;
        try {
          piece = chunkData(JSON.parse(ev.data));
        } catch {
          piece = null;
        }
        if (piece === null) throw fail();
        try {
          parts.push(base64Bytes(piece));
        } catch {
          throw fail();
        }
      }
    }
  } catch {
    throw fail();
  } finally {
    reader.releaseLock();
  }
  if (!ended) throw fail();
  return new Blob(parts, { type: AUDIO_BLOB_TYPE });
}

/** Saves a Blob as a file through a temporary link. */
export function saveBlob(blob: Blob, name: string): void {
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}
