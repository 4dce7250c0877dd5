import { describe, expect, it } from 'vitest';
import { fetchPolishStream, PolishController } from './polishController';
import type { PolishStream } from './polishController';
import type { PolishState } from './polish';

function sse(events: object[]): Response {
  return new Response(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''), {
    status: 200,
    headers: { 'Content-Type': 'text/event-stream' },
  });
}

function harness(stream: PolishStream) {
  const log: string[] = [];
  const states: PolishState['phase'][] = [];
  let field = '';
  const c = new PolishController({
    stream,
    setPrompt: (t) => {
      field = t;
      log.push(`set:${t}`);
    },
    openLogin: () => log.push('login'),
    toast: (k) => log.push(`toast:${k}`),
    onState: (s) => states.push(s.phase),
  });
  return { c, log, states, field: () => field };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('PolishController over the fetched stream', () => {
  it('sends the headers and prompt, fills the field and returns to idle', async () => {
    let url = '';
    let headers: Record<string, string> = {};
    const stream = fetchPolishStream(
      () => ({ token: 'tk', language: 'en', deviceid: 'd1' }),
      (u, init) => {
        url = String(u);
        headers = init?.headers as Record<string, string>;
        return Promise.resolve(
          sse([
            { status: { code: 70005 }, data: { prompt: 'A red' } },
            { status: { code: 70005 }, data: { prompt: ' fox' } },
            { status: { code: 10000 }, data: { prompt: 'A red fox' } },
          ]),
        );
      },
    );
    const h = harness(stream);
    h.c.submit('fox & hen');
    expect(h.c.state.phase).toBe('polishing');
    await settle();
    await settle();
    expect(url).toBe('/api/v1/task/prompt-render?prompt=fox%20%26%20hen');
    expect(headers).toMatchObject({ token: 'tk', language: 'en', deviceid: 'd1' });
    expect(h.log).toEqual(['set:A red', 'set:A red fox', 'set:A red fox']);
    expect(h.c.state).toEqual({ phase: 'idle', undo: 'fox & hen' });
    h.c.undo();
    expect(h.field()).toBe('fox & hen');
  });

  it('opens login on 20000 and returns to idle when the server closes', async () => {
    const h = harness((_p, on) => {
      on(20000, '');
      return Promise.resolve();
    });
    h.c.submit('cat');
    await settle();
    expect(h.log).toEqual(['login']);
    expect(h.states).toEqual(['polishing', 'idle']);
  });

  it('resets on a stream error and shows the limit message', async () => {
    const failing = harness(() => Promise.reject(new Error('boom')));
    failing.c.submit('cat');
    await settle();
    expect(failing.c.state.phase).toBe('idle');
    const limited = harness((_p, on) => {
      on(70017, '');
      return new Promise(() => undefined);
    });
    limited.c.submit('cat');
    await settle();
    expect(limited.log).toEqual(['toast:taskPromptGenerateLimit']);
    expect(limited.c.state.phase).toBe('idle');
  });

  it('cancel aborts the stream and puts the original back', async () => {
    let signal: AbortSignal | undefined;
    const h = harness((_p, on, s) => {
      signal = s;
      on(70005, 'Half');
      return new Promise((_r, reject) => s.addEventListener('abort', () => reject(new DOMException('x', 'AbortError'))));
    });
    h.c.submit('cat');
    h.c.cancel();
    await settle();
    expect(signal?.aborted).toBe(true);
    expect(h.log).toEqual(['set:Half', 'set:cat']);
    expect(h.c.state.phase).toBe('idle');
  });

  it('forgets the undo once the user edits the polished text', async () => {
    const h = harness((_p, on) => {
      on(10000, 'Polished');
      return Promise.resolve();
    });
    h.c.submit('cat');
    await settle();
    h.c.fieldChanged('Polished');
    expect(h.c.state).toEqual({ phase: 'idle', undo: 'cat' });
    h.c.fieldChanged('Polished!');
    expect(h.c.state).toEqual({ phase: 'idle', undo: null });
  });
});
