// The chunked video upload against a fake server behind a mocked fetch:
// states, slicing by the server's chunk size, the retry schedule under fake
// timers, the messages of §8, and the resume from the confirmed parts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../api/client';
import {
  DEFAULT_CHUNK_SIZE,
  INITIAL_UPLOAD,
  MAX_VIDEO_BYTES,
  PART_RETRY_DELAY_MS,
  UPLOAD_PATHS,
  VideoUploader,
  fetchPut,
  finalStatusOk,
  partRanges,
  retryDelays,
  uploadReducer,
  videoContentType,
  withRetries,
} from './upload';
import type { UploadState } from './upload';

function envelope(code: number, data: unknown, key: string | null = null, msg = '') {
  return new Response(JSON.stringify({ status: { code, msg, key }, data }), { status: 200, headers: { 'Content-Type': 'application/json' } });
}

/** A fake upload server: records calls; `failPuts` PUTs answer 500 first; confirm answers `finalStatus`. */
function fakeServer(opts: { chunk: number; failPuts?: number; finalStatus?: unknown; badVideo?: boolean; confirmPartFails?: boolean; forget?: boolean } = { chunk: 4 }) {
  let failPuts = opts.failPuts ?? 0;
  const calls: { path: string; body: unknown }[] = [];
  const puts: { url: string; size: number }[] = [];
  const parts = new Map<number, boolean>();
  let n = 0;
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    if (init?.method === 'PUT') {
      if (failPuts > 0) {
        failPuts--;
        return new Response('', { status: 500 });
      }
      const size = (init.body as Blob).size;
      puts.push({ url, size });
      parts.set(Number(/\/(\d+)\?/.exec(url)?.[1]), true);
      return new Response('', { status: 200 });
    }
    const body: Record<string, unknown> = JSON.parse(String(init?.body ?? '{}'));
    calls.push({ path: url, body });
    switch (url) {
      case UPLOAD_PATHS.preSign:
        n = Math.ceil(Number(body.file_size) / opts.chunk);
        return envelope(10000, { file_id: 'f1', chunk_size: opts.chunk, pre_signs: Array.from({ length: n }, (_, i) => `http://x/upload/f1/${i}?t=${i}`) });
      case UPLOAD_PATHS.confirmPart:
        if (opts.confirmPartFails) return envelope(40900, null, 'Conflict', 'that part was not uploaded');
        return envelope(10000, { url: 'http://x/files/u/f1/a.mp4' });
      case UPLOAD_PATHS.preSignAddr:
        if (opts.forget) return envelope(40400, null, 'NotFound');
        return envelope(10000, {
          file_id: 'f1',
          chunk_size: opts.chunk,
          pre_signs: Array.from({ length: n }, (_, i) => `http://x/upload/f1/${i}?t=${i}`),
          parts_done: Array.from({ length: n }, (_, i) => parts.get(i) ?? false),
          confirmed: false,
        });
      case UPLOAD_PATHS.confirm:
        if (opts.badVideo) return envelope(40021, null, 'uploadVideoError', 'not a readable video');
        return envelope(10000, { status: opts.finalStatus ?? 0, url: 'http://x/files/u/f1/a.mp4' });
      default:
        return envelope(40400, null, 'NotFound');
    }
  });
  const api = new ApiClient({ fetch: fetchMock as unknown as typeof fetch, getToken: () => 'tok' });
  return { api, fetchMock, calls, puts, put: fetchPut(fetchMock as unknown as typeof fetch) };
}

function file(size: number, type = 'video/mp4', name = 'a.mp4'): File {
  return new File([new Uint8Array(size)], name, { type });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('upload pure parts', () => {
  it('slices parts by the chunk size, the last one short', () => {
    expect(partRanges(10, 4, 3)).toEqual([
      { index: 0, start: 0, end: 4 },
      { index: 1, start: 4, end: 8 },
      { index: 2, start: 8, end: 10 },
    ]);
    expect(partRanges(45_000_000, DEFAULT_CHUNK_SIZE, 3).map((r) => r.end - r.start)).toEqual([20_971_520, 20_971_520, 3_056_960]);
    // Never more parts than URLs.
    expect(partRanges(10, 4, 2)).toHaveLength(2);
  });

  it('retries 3 times, 3 s apart', () => {
    expect(retryDelays()).toEqual([3000, 3000, 3000]);
    expect(PART_RETRY_DELAY_MS).toBe(3000);
  });

  it('accepts 0 and "0" as the final status', () => {
    expect(finalStatusOk(0)).toBe(true);
    expect(finalStatusOk('0')).toBe(true);
    expect(finalStatusOk(1)).toBe(false);
    expect(finalStatusOk(undefined)).toBe(false);
  });

  it('announces a video type', () => {
    expect(videoContentType({ type: 'video/webm' })).toBe('video/webm');
    expect(videoContentType({ type: '', name: 'clip.MOV' })).toBe('video/quicktime');
    expect(videoContentType({ type: '', name: 'x.bin' })).toBe('application/octet-stream');
  });

  it('walks the states of §4', () => {
    let s: UploadState = uploadReducer(INITIAL_UPLOAD, { type: 'start', fileName: 'a.mp4', total: 10 });
    expect(s.status).toBe('pending');
    s = uploadReducer(s, { type: 'signed', fileId: 'f', preSigns: ['u0', 'u1', 'u2'], chunkSize: 4 });
    s = uploadReducer(s, { type: 'partConfirmed', index: 0 });
    expect(s.sent).toBe(4);
    s = uploadReducer(s, { type: 'partFailed', detail: 'net' });
    expect([s.status, s.message, s.fileId, s.confirmed]).toEqual(['fail', 'uploadError', 'f', [true, false, false]]);
    s = uploadReducer(s, { type: 'resume' });
    expect([s.status, s.sent]).toEqual(['pending', 4]);
    s = uploadReducer(s, { type: 'confirmFailed', detail: 'x' });
    expect(s.status).toBe('error');
    expect(uploadReducer(s, { type: 'refresh' })).toEqual(INITIAL_UPLOAD);
    // A refresh outside error changes nothing.
    const pending = uploadReducer(INITIAL_UPLOAD, { type: 'start', fileName: 'a', total: 1 });
    expect(uploadReducer(pending, { type: 'refresh' })).toBe(pending);
    const bad = uploadReducer(uploadReducer(pending, { type: 'badFinal', detail: 'status 1' }), { type: 'reset' });
    expect([bad.status, bad.message]).toEqual(['init', 'uploadVideoError']);
  });

  it('withRetries gives up after the last wait', async () => {
    const waits: number[] = [];
    const sleep = vi.fn(async (ms: number) => {
      waits.push(ms);
    });
    const attempt = vi.fn(async () => {
      throw new Error('down');
    });
    await expect(withRetries(attempt, sleep)).rejects.toThrow('down');
    expect(attempt).toHaveBeenCalledTimes(4);
    expect(waits).toEqual([3000, 3000, 3000]);
  });
});

describe('VideoUploader against a mocked server', () => {
  it('uploads every part, confirms each, then the file', async () => {
    const srv = fakeServer({ chunk: 4 });
    const states: UploadState[] = [];
    const up = new VideoUploader({ api: srv.api, put: srv.put }, (s) => states.push(s));
    const url = await up.start(file(10));
    expect(url).toBe('http://x/files/u/f1/a.mp4');
    expect(srv.puts.map((p) => p.size)).toEqual([4, 4, 2]);
    expect(srv.calls.map((c) => c.path)).toEqual([UPLOAD_PATHS.preSign, UPLOAD_PATHS.confirmPart, UPLOAD_PATHS.confirmPart, UPLOAD_PATHS.confirmPart, UPLOAD_PATHS.confirm]);
    expect(srv.calls[0]?.body).toEqual({ file_size: 10, file_name: 'a.mp4', content_type: 'video/mp4', category: 8 });
    expect(srv.calls[2]?.body).toEqual({ file_id: 'f1', pre_sign_url: 'http://x/upload/f1/1?t=1' });
    expect(srv.calls[4]?.body).toEqual({ file_id: 'f1' });
    expect(states[0]?.status).toBe('pending');
    expect(up.current.status).toBe('complete');
    // Progress only grows, to the whole file.
    const sent = states.map((s) => s.sent);
    expect(sent).toEqual([...sent].sort((a, b) => a - b));
    expect(up.current.sent).toBe(10);
  });

  it('rejects a file over 1 GiB before any call', async () => {
    const srv = fakeServer({ chunk: 4 });
    const up = new VideoUploader({ api: srv.api, put: srv.put });
    const huge = { size: MAX_VIDEO_BYTES + 1, type: 'video/mp4', name: 'big.mp4', slice: () => new Blob() } as unknown as File;
    expect(await up.start(huge)).toBeNull();
    expect(up.current.message).toBe('CreativeCenterPopup12');
    expect(up.current.status).toBe('init');
    expect(srv.fetchMock).not.toHaveBeenCalled();
  });

  it('ignores a second upload while one runs', async () => {
    const srv = fakeServer({ chunk: 4 });
    const up = new VideoUploader({ api: srv.api, put: srv.put });
    const first = up.start(file(10));
    expect(await up.start(file(6, 'video/mp4', 'b.mp4'))).toBeNull();
    expect(await first).not.toBeNull();
    expect(srv.calls.filter((c) => c.path === UPLOAD_PATHS.preSign)).toHaveLength(1);
  });

  it('retries a failed part 3 s later (fake timers) and succeeds', async () => {
    vi.useFakeTimers();
    const srv = fakeServer({ chunk: 4, failPuts: 2 });
    const up = new VideoUploader({ api: srv.api, put: srv.put });
    const done = up.start(file(6));
    await vi.advanceTimersByTimeAsync(2999);
    expect(srv.puts).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    await vi.advanceTimersByTimeAsync(3000);
    expect(await done).toBe('http://x/files/u/f1/a.mp4');
    expect(srv.fetchMock.mock.calls.filter((c) => c[1]?.method === 'PUT')).toHaveLength(4);
  });

  it('fails with uploadError once the retries are spent, then resumes from the confirmed parts', async () => {
    vi.useFakeTimers();
    // Part 0 goes through; part 1 fails 4 times (1 + 3 retries).
    const srv = fakeServer({ chunk: 4 });
    let putsLeft = 1;
    const flaky = vi.fn(async (url: string, body: Blob, onProgress: (n: number) => void) => {
      if (putsLeft-- > 0) return srv.put(url, body, onProgress);
      throw new Error('upload failed: network');
    });
    const up = new VideoUploader({ api: srv.api, put: flaky });
    const first = up.start(file(10));
    await vi.advanceTimersByTimeAsync(9000);
    expect(await first).toBeNull();
    expect(flaky).toHaveBeenCalledTimes(5);
    expect([up.current.status, up.current.message, up.current.fileId, up.current.confirmed]).toEqual(['fail', 'uploadError', 'f1', [true, false, false]]);
    expect(up.current.sent).toBe(4);

    // The network is back: the retry asks which parts the server holds and sends only the rest.
    flaky.mockImplementation((url, body, onProgress) => srv.put(url, body, onProgress));
    const before = srv.puts.length;
    const url = await up.retry();
    expect(url).toBe('http://x/files/u/f1/a.mp4');
    expect(srv.puts.slice(before).map((p) => p.url)).toEqual(['http://x/upload/f1/1?t=1', 'http://x/upload/f1/2?t=2']);
    expect(srv.calls.filter((c) => c.path === UPLOAD_PATHS.preSign)).toHaveLength(1);
    expect(srv.calls.some((c) => c.path === UPLOAD_PATHS.preSignAddr)).toBe(true);
  });

  it('starts over when the server forgot the upload', async () => {
    vi.useFakeTimers();
    const srv = fakeServer({ chunk: 4, failPuts: 4, forget: true });
    const up = new VideoUploader({ api: srv.api, put: srv.put });
    const first = up.start(file(4));
    await vi.advanceTimersByTimeAsync(9000);
    expect(await first).toBeNull();
    expect(await up.retry()).toBe('http://x/files/u/f1/a.mp4');
    expect(srv.calls.filter((c) => c.path === UPLOAD_PATHS.preSign)).toHaveLength(2);
  });

  it('a part-confirm failure is the error state; a refresh clears it', async () => {
    const srv = fakeServer({ chunk: 4, confirmPartFails: true });
    const up = new VideoUploader({ api: srv.api, put: srv.put });
    expect(await up.start(file(4))).toBeNull();
    expect(up.current.status).toBe('error');
    expect(await up.retry()).toBeNull();
    up.refresh();
    expect(up.current).toEqual(INITIAL_UPLOAD);
  });

  it('a final status that is not 0 shows uploadVideoError and resets to init', async () => {
    const srv = fakeServer({ chunk: 4, finalStatus: 1 });
    const states: UploadState[] = [];
    const up = new VideoUploader({ api: srv.api, put: srv.put }, (s) => states.push(s));
    expect(await up.start(file(4))).toBeNull();
    expect(states.map((s) => s.status).slice(-2)).toEqual(['fail', 'init']);
    expect(up.current.message).toBe('uploadVideoError');
  });

  it("the server's uploadVideoError (not a video) is the same", async () => {
    const srv = fakeServer({ chunk: 4, badVideo: true });
    const up = new VideoUploader({ api: srv.api, put: srv.put });
    expect(await up.start(file(4))).toBeNull();
    expect([up.current.status, up.current.message, up.current.detail]).toEqual(['init', 'uploadVideoError', 'not a readable video']);
  });
});
