// The streamed lyrics call (COMMON18): POST /api/stream/audio/lyrics with
// {prompt, title?, language?} answers `delta` events ({text}) then `done`
// ({title, lyrics}) or `error` ({key, msg}); an envelope instead of a stream
// is a refusal (NeedLogin, audioPromptEmpty, ...).
import { TOKEN_HEADER } from '../api/client';
import { readSse, StreamStatusError } from '../agent/sse';

export interface LyricsHandlers {
  onDelta: (text: string) => void;
}

export interface LyricsResult {
  title: string;
  lyrics: string;
}

/** A refusal or failure of the lyrics stream, with the server's key when it gave one. */
export class LyricsError extends Error {
  readonly key: string | null;
  constructor(key: string | null, msg: string) {
    super(msg);
    this.name = 'LyricsError';
    this.key = key;
  }
}

export async function streamLyrics(
  path: string,
  body: Record<string, unknown>,
  handlers: LyricsHandlers,
  options: { token: string | null; fetch?: typeof fetch; signal?: AbortSignal },
): Promise<LyricsResult> {
  let result: LyricsResult | null = null;
  let failure: LyricsError | null = null;
  let sofar = '';
  try {
    await readSse(
      path,
      (ev) => {
        let data: Record<string, unknown>;
        try {
          data = JSON.parse(ev.data) as Record<string, unknown>;
        } catch {
          data = {};
        }
        if (ev.event === 'delta' && typeof data.text === 'string') {
          sofar += data.text;
          handlers.onDelta(data.text);
        } else if (ev.event === 'done') {
          result = { title: typeof data.title === 'string' ? data.title : '', lyrics: typeof data.lyrics === 'string' ? data.lyrics : sofar };
          return false;
        } else if (ev.event === 'error') {
          failure = new LyricsError(typeof data.key === 'string' ? data.key : null, typeof data.msg === 'string' ? data.msg : '');
          return false;
        }
        return true;
      },
      {
        method: 'POST',
        body,
        headers: options.token ? { [TOKEN_HEADER]: options.token } : {},
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      },
    );
  } catch (e) {
    if (e instanceof StreamStatusError) throw new LyricsError(e.key, e.msg);
    throw e instanceof Error ? new LyricsError('NetworkError', e.message) : e;
  }
  if (failure) throw failure;
  if (!result) throw new LyricsError('NetworkError', 'the lyrics stream ended early');
  return result;
}
