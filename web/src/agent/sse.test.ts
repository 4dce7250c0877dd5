import { describe, expect, it } from 'vitest';
import { readSse, SseParser, StreamError } from './sse';
import type { SseEvent } from './sse';

function all(chunks: string[]): SseEvent[] {
  const p = new SseParser();
  return chunks.flatMap((c) => p.push(c));
}

describe('SseParser', () => {
  it('dispatches on a blank line and joins data lines with newlines', () => {
    expect(all(['data: one\ndata: two\n\ndata: three\n\n'])).toEqual([
      { event: 'message', data: 'one\ntwo', id: null },
      { event: 'message', data: 'three', id: null },
    ]);
  });

  it('gives the same events whatever the chunk boundaries, even inside a line', () => {
    const text = 'event: delta\nid: 7\ndata: {"a":"b c"}\n\n: a comment\ndata:x\ndata\n\n';
    const whole = all([text]);
    expect(whole).toEqual([
      { event: 'delta', data: '{"a":"b c"}', id: '7' },
      { event: 'message', data: 'x\n', id: '7' },
    ]);
    for (let size = 1; size <= 7; size++) {
      const chunks: string[] = [];
      for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
      expect(all(chunks)).toEqual(whole);
    }
  });

  it('accepts CRLF and CR line endings, also when CR and LF fall in two chunks', () => {
    expect(all(['data: a\r\n\r\ndata: b\r\rdata: c\n\n'])).toEqual([
      { event: 'message', data: 'a', id: null },
      { event: 'message', data: 'b', id: null },
      { event: 'message', data: 'c', id: null },
    ]);
    expect(all(['data: a\r', '\n\r', '\n'])).toEqual([{ event: 'message', data: 'a', id: null }]);
  });

  it('drops only one leading space, skips comments and events without data', () => {
    expect(all(['data:  two spaces\n\n:keepalive\n\nevent: ping\n\n'])).toEqual([
      { event: 'message', data: ' two spaces', id: null },
    ]);
  });

  it('discards an unterminated event at the end', () => {
    const p = new SseParser();
    expect(p.push('data: half')).toEqual([]);
    expect(p.end()).toEqual([]);
    expect(p.push('data: next\n\n')).toEqual([{ event: 'message', data: 'next', id: null }]);
  });
});

function streamResponse(chunks: string[], status = 200): Response {
  const enc = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const ch of chunks) c.enqueue(enc.encode(ch));
      c.close();
    },
  });
  return new Response(body, { status, headers: { 'Content-Type': 'text/event-stream' } });
}

describe('readSse', () => {
  it('reads events across byte chunks, including a split multi-byte character', async () => {
    const bytes = new TextEncoder().encode('data: café\n\ndata: ok\n\n');
    // Split inside the two bytes of "é".
    const cut = bytes.indexOf(0xc3) + 1;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, cut));
        c.enqueue(bytes.slice(cut));
        c.close();
      },
    });
    const seen: string[] = [];
    let init: RequestInit | undefined;
    await readSse('/s', (e) => void seen.push(e.data), {
      headers: { token: 't1' },
      fetch: (_url, i) => {
        init = i;
        return Promise.resolve(new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream; charset=utf-8' } }));
      },
    });
    expect(seen).toEqual(['café', 'ok']);
    expect((init?.headers as Record<string, string>).token).toBe('t1');
    expect(init?.method).toBe('GET');
  });

  it('stops when the handler returns false', async () => {
    const seen: string[] = [];
    await readSse(
      '/s',
      (e) => {
        seen.push(e.data);
        return e.data !== 'stop';
      },
      { fetch: () => Promise.resolve(streamResponse(['data: a\n\ndata: stop\n\ndata: after\n\n'])) },
    );
    expect(seen).toEqual(['a', 'stop']);
  });

  it('rejects with StreamError on an HTTP error or a network failure', async () => {
    await expect(readSse('/s', () => undefined, { fetch: () => Promise.resolve(streamResponse([], 502)) })).rejects.toBeInstanceOf(
      StreamError,
    );
    await expect(readSse('/s', () => undefined, { fetch: () => Promise.reject(new TypeError('down')) })).rejects.toBeInstanceOf(
      StreamError,
    );
  });

  it('rejects with the envelope of an answer that is not an event stream', async () => {
    const json = new Response('{"status":{"code":20000,"key":"NeedLogin","msg":"log in"}}', {
      status: 401,
      headers: { 'Content-Type': 'application/json' },
    });
    await expect(readSse('/s', () => undefined, { fetch: () => Promise.resolve(json) })).rejects.toMatchObject({
      name: 'StreamStatusError',
      code: 20000,
      key: 'NeedLogin',
    });
  });

  it('sends a JSON body with POST', async () => {
    let init: RequestInit | undefined;
    await readSse('/s', () => undefined, {
      method: 'POST',
      body: { a: 1 },
      fetch: (_u, i) => {
        init = i;
        return Promise.resolve(streamResponse([]));
      },
    });
    expect(init?.body).toBe('{"a":1}');
    expect((init?.headers as Record<string, string>)['Content-Type']).toBe('application/json');
  });
});
