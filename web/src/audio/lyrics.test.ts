import { describe, expect, it, vi } from 'vitest';
import { LyricsError, streamLyrics } from './lyrics';

function sse(text: string) {
  return new Response(text, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
}

describe('streamLyrics', () => {
  it('hands on deltas and answers the done event', async () => {
    const f = vi.fn(async () => sse('event: delta\ndata: {"text":"[Verse]\\n"}\n\nevent: delta\ndata: {"text":"la"}\n\nevent: done\ndata: {"title":"Sun","lyrics":"[Verse]\\nla"}\n\n'));
    const seen: string[] = [];
    const r = await streamLyrics('/api/stream/audio/lyrics', { prompt: 'sun' }, { onDelta: (t) => seen.push(t) }, { token: 't', fetch: f as unknown as typeof fetch });
    expect(seen).toEqual(['[Verse]\n', 'la']);
    expect(r).toEqual({ title: 'Sun', lyrics: '[Verse]\nla' });
    const init = (f.mock.calls[0] as unknown as [string, RequestInit])[1];
    expect(init.method).toBe('POST');
    expect(new Headers(init.headers).get('token')).toBe('t');
  });

  it('fails with the key of an error event or a refusal envelope', async () => {
    const e1 = vi.fn(async () => sse('event: error\ndata: {"key":"LanguageModelUnavailable","msg":"down"}\n\n'));
    await expect(streamLyrics('/x', {}, { onDelta: () => {} }, { token: null, fetch: e1 as unknown as typeof fetch })).rejects.toMatchObject({ key: 'LanguageModelUnavailable' });
    const e2 = vi.fn(async () => new Response('{"status":{"code":40084,"key":"audioPromptEmpty","msg":"x"}}', { status: 400, headers: { 'Content-Type': 'application/json' } }));
    await expect(streamLyrics('/x', {}, { onDelta: () => {} }, { token: null, fetch: e2 as unknown as typeof fetch })).rejects.toBeInstanceOf(LyricsError);
    await expect(streamLyrics('/x', {}, { onDelta: () => {} }, { token: null, fetch: e2 as unknown as typeof fetch })).rejects.toMatchObject({ key: 'audioPromptEmpty' });
    const cut = vi.fn(async () => sse('event: delta\ndata: {"text":"a"}\n\n'));
    await expect(streamLyrics('/x', {}, { onDelta: () => {} }, { token: null, fetch: cut as unknown as typeof fetch })).rejects.toMatchObject({ key: 'NetworkError' });
  });
});
