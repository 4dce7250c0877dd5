// The audio upload helper and the download stream against a mocked fetch:
// the spec's call order and bodies, its three upload errors, multi-part
// files, chunk joining (both payload shapes) and the download error text.
import { describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../api/client';
import { base64Bytes, chunkData, downloadAudio, streamPath } from './download';
import { AUDIO_CATEGORY, AUDIO_ERRORS, AUDIO_PATHS, uploadAudio } from './upload';

function envelope(code: number, data: unknown, key: string | null = null) {
  return new Response(JSON.stringify({ status: { code, msg: '', key }, data }), { status: 200, headers: { 'Content-Type': 'application/json' } });
}

interface FakeOpts {
  preSigns?: string[] | null;
  putStatus?: number;
  confirmUrl?: string | null;
  chunk?: number;
  refuse?: string;
}

function fakeServer(opts: FakeOpts = {}) {
  const calls: { path: string; body: Record<string, unknown> }[] = [];
  const puts: { url: string; type: string | null; size: number }[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    if (init?.method === 'PUT') {
      const headers = new Headers(init.headers);
      puts.push({ url, type: headers.get('Content-Type'), size: (init.body as Blob).size });
      return new Response('', { status: opts.putStatus ?? 200 });
    }
    const body = JSON.parse(String(init?.body ?? '{}')) as Record<string, unknown>;
    calls.push({ path: url, body });
    if (url === AUDIO_PATHS.preSign) {
      const pre = opts.preSigns === undefined ? ['http://x/upload/f1/0?t=a'] : opts.preSigns;
      return envelope(10000, { file_id: 'f1', chunk_size: opts.chunk ?? 20, pre_signs: pre });
    }
    if (body.pre_sign_url) return envelope(10000, opts.confirmUrl === null ? null : { url: opts.confirmUrl ?? 'http://x/files/u/f1/a.mp3' });
    if (opts.refuse) return envelope(40022, null, opts.refuse);
    return envelope(10000, { status: 0, url: 'http://x/files/u/f1/a.mp3' });
  });
  const api = new ApiClient({ getToken: () => 'tok', fetch: fetchMock as unknown as typeof fetch });
  return { calls, puts, api, fetch: fetchMock as unknown as typeof fetch };
}

const file = (size: number, name = 'a.mp3', type = 'audio/mpeg') => Object.assign(new Blob([new Uint8Array(size)], { type }), { name });

describe('uploadAudio', () => {
  it('follows the spec: pre-sign (category 59), PUT octet-stream to the first URL, confirm with the URL, then the second confirmation', async () => {
    const s = fakeServer();
    const done = await uploadAudio(file(10), { api: s.api, fetch: s.fetch });
    expect(done).toEqual({ fileId: 'f1', url: 'http://x/files/u/f1/a.mp3', status: 0 });
    expect(s.calls.map((c) => c.path)).toEqual([AUDIO_PATHS.preSign, AUDIO_PATHS.confirm, AUDIO_PATHS.confirm]);
    expect(s.calls[0]?.body).toEqual({ file_size: 10, file_name: 'a.mp3', content_type: 'audio/mpeg', category: AUDIO_CATEGORY });
    expect(s.calls[1]?.body).toEqual({ file_id: 'f1', pre_sign_url: 'http://x/upload/f1/0?t=a' });
    expect(s.calls[2]?.body).toEqual({ file_id: 'f1' });
    expect(s.puts).toEqual([{ url: 'http://x/upload/f1/0?t=a', type: 'application/octet-stream', size: 10 }]);
  });

  it('sends a file larger than one server part in its parts, confirming each', async () => {
    const s = fakeServer({ preSigns: ['http://x/u/0?t=a', 'http://x/u/1?t=b', 'http://x/u/2?t=c'], chunk: 4 });
    await uploadAudio(file(10), { api: s.api, fetch: s.fetch });
    expect(s.puts.map((p) => p.size)).toEqual([4, 4, 2]);
    expect(s.calls.map((c) => c.path)).toEqual([AUDIO_PATHS.preSign, AUDIO_PATHS.confirm, AUDIO_PATHS.confirmPart, AUDIO_PATHS.confirmPart, AUDIO_PATHS.confirm]);
  });

  it('fails with the three messages of spec 2 §8', async () => {
    await expect(uploadAudio(file(3), { api: fakeServer({ preSigns: [] }).api, fetch: fakeServer().fetch })).rejects.toThrow(AUDIO_ERRORS.noConfig);
    await expect(uploadAudio(file(3), { api: fakeServer({ preSigns: null }).api, fetch: fakeServer().fetch })).rejects.toThrow('failed to get upload config');
    const bad = fakeServer({ putStatus: 403 });
    await expect(uploadAudio(file(3), { api: bad.api, fetch: bad.fetch })).rejects.toThrow('upload failed: 403');
    const empty = fakeServer({ confirmUrl: null });
    await expect(uploadAudio(file(3), { api: empty.api, fetch: empty.fetch })).rejects.toThrow(AUDIO_ERRORS.noConfirmation);
  });

  it('passes the server refusal through with its key', async () => {
    const s = fakeServer({ refuse: 'uploadAudioError' });
    await expect(uploadAudio(file(3), { api: s.api, fetch: s.fetch })).rejects.toMatchObject({ key: 'uploadAudioError' });
  });
});

function sse(text: string[], status = 200, type = 'text/event-stream') {
  const enc = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const t of text) c.enqueue(enc.encode(t));
      c.close();
    },
  });
  return new Response(body, { status, headers: { 'Content-Type': type } });
}

/** A Blob's bytes (jsdom's Blob has no arrayBuffer()). */
function bytesOf(blob: Blob): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(r.result as ArrayBuffer);
    r.onerror = () => reject(r.error);
    r.readAsArrayBuffer(blob);
  });
}

const b64 = (bytes: number[]) => btoa(String.fromCharCode(...bytes));

describe('downloadAudio', () => {
  it('joins chunk events of both shapes, split anywhere, into one audio/aac blob', async () => {
    const whole = `event: chunk\ndata: {"audioData":"${b64([1, 2, 3])}"}\n\nevent: chunk\ndata: {"data":{"audioData":"${b64([4, 5])}"}}\n\nevent: end\ndata: {}\n\n`;
    const pieces = [whole.slice(0, 7), whole.slice(7, 40), whole.slice(40)];
    const f = vi.fn(async () => sse(pieces));
    const blob = await downloadAudio('/files/t/x/a.m4a', { fetch: f as unknown as typeof fetch, token: 'tok' });
    expect(blob.type).toBe('audio/aac');
    expect([...new Uint8Array(await bytesOf(blob))]).toEqual([1, 2, 3, 4, 5]);
    const [url, init] = f.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/stream/audio?url=%2Ffiles%2Ft%2Fx%2Fa.m4a');
    expect(new Headers(init.headers).get('token')).toBe('tok');
  });

  it('says "Error fetching audio chunks for download" for a 404 envelope, an error event, a cut stream or a bad chunk', async () => {
    const cases = [
      () => envelope(40400, null, 'NotFound'),
      () => new Response('{"status":{"code":40400}}', { status: 404, headers: { 'Content-Type': 'application/json' } }),
      () => sse([`event: chunk\ndata: {"audioData":"${b64([1])}"}\n\nevent: error\ndata: {"key":"ServerError"}\n\n`]),
      () => sse([`event: chunk\ndata: {"audioData":"${b64([1])}"}\n\n`]),
      () => sse(['event: chunk\ndata: {"nothing":1}\n\nevent: end\ndata: {}\n\n']),
      () => sse(['event: chunk\ndata: {"audioData":"**"}\n\nevent: end\ndata: {}\n\n']),
    ];
    for (const answer of cases) {
      const f = vi.fn(async () => answer());
      await expect(downloadAudio('/files/a', { fetch: f as unknown as typeof fetch, token: null })).rejects.toThrow(AUDIO_ERRORS.download);
    }
    const offline = vi.fn(async () => {
      throw new TypeError('offline');
    });
    await expect(downloadAudio('/files/a', { fetch: offline as unknown as typeof fetch, token: null })).rejects.toThrow('Error fetching audio chunks for download');
  });

  it('reads both payload shapes and base64', () => {
    expect(chunkData({ audioData: 'QQ==' })).toBe('QQ==');
    expect(chunkData({ data: { audioData: 'Qg==' } })).toBe('Qg==');
    expect(chunkData({ data: null })).toBeNull();
    expect(chunkData('x')).toBeNull();
    expect([...base64Bytes('QUI=')]).toEqual([65, 66]);
    expect(streamPath('http://h/files/a b.m4a')).toBe('/api/stream/audio?url=http%3A%2F%2Fh%2Ffiles%2Fa%20b.m4a');
  });
});
