import { describe, expect, it } from 'vitest';
import { AgentStreamError, requestMessages, sendAgentMessage } from './agentStream';
import type { AgentRequest, OpenStream } from './agentStream';
import { StreamError, StreamStatusError } from './sse';
import type { SseEvent } from './sse';

const body: AgentRequest = {
  conv_id: 'c1',
  parent_msg_id: '',
  seg_id: '',
  start_new_topic: true,
  messages: requestMessages('a cat', null),
  biz_param: { curr_base_model_name: 'Easel Base', duration: 0, task_type: 'txt2img', conv_type: 0 },
  safe_scene: 52,
};

const ev = (data: object): SseEvent => ({ event: 'message', data: JSON.stringify(data), id: null });
const delta = (d: string, done = false) => ev({ status: { code: 10000 }, data: { msg_id: 'm1', delta: d, done } });

/** A scripted stream: each attempt runs the next script (events, then an optional failure). */
function scripted(attempts: { events: SseEvent[]; fail?: Error }[]) {
  let n = 0;
  const open: OpenStream = async (_b, onEvent) => {
    const a = attempts[n++];
    if (!a) throw new Error('no more attempts scripted');
    for (const e of a.events) if (onEvent(e) === false) return;
    if (a.fail) throw a.fail;
  };
  return { open, calls: () => n };
}

function run(open: OpenStream) {
  const deltas: string[] = [];
  const sleeps: number[] = [];
  const promise = sendAgentMessage(body, {
    open,
    signal: new AbortController().signal,
    onDelta: (_id, d) => deltas.push(d),
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  });
  return { promise, deltas, sleeps };
}

describe('sendAgentMessage', () => {
  it('streams deltas and resolves with the reply id on done', async () => {
    const s = scripted([{ events: [delta('Here '), delta('is """a cat"""'), delta('', true)] }]);
    const r = run(s.open);
    expect(await r.promise).toBe('m1');
    expect(r.deltas).toEqual(['Here ', 'is """a cat"""']);
    expect(r.sleeps).toEqual([]);
  });

  it('retries a network failure before any delta, 1000 ms apart', async () => {
    const s = scripted([{ events: [], fail: new StreamError('down') }, { events: [], fail: new StreamError('HTTP 502', 502) }, { events: [delta('ok', true)] }]);
    const r = run(s.open);
    expect(await r.promise).toBe('m1');
    expect(s.calls()).toBe(3);
    expect(r.sleeps).toEqual([1000, 1000]);
  });

  it('gives up after 3 retries', async () => {
    const s = scripted(Array.from({ length: 5 }, () => ({ events: [], fail: new StreamError('down') })));
    const r = run(s.open);
    await expect(r.promise).rejects.toMatchObject({ code: 0, key: 'NetworkError' });
    expect(s.calls()).toBe(4);
    expect(r.sleeps).toEqual([1000, 1000, 1000]);
  });

  it('retries a stream that closed with nothing, not one that closed after a delta', async () => {
    const empty = scripted([{ events: [] }, { events: [delta('x', true)] }]);
    expect(await run(empty.open).promise).toBe('m1');
    expect(empty.calls()).toBe(2);
    const cut = scripted([{ events: [delta('half')], fail: new StreamError('broken') }, { events: [delta('again', true)] }]);
    const r = run(cut.open);
    await expect(r.promise).rejects.toBeInstanceOf(AgentStreamError);
    expect(cut.calls()).toBe(1);
    expect(r.deltas).toEqual(['half']);
  });

  it('does not retry the server answering an error', async () => {
    const event = scripted([{ events: [ev({ status: { code: 50310, key: 'LanguageModelUnavailable', msg: 'down' } })] }]);
    await expect(run(event.open).promise).rejects.toMatchObject({ code: 50310, key: 'LanguageModelUnavailable' });
    expect(event.calls()).toBe(1);
    const envelope = scripted([{ events: [], fail: new StreamStatusError(20000, 'NeedLogin', '', 401) }]);
    await expect(run(envelope.open).promise).rejects.toMatchObject({ code: 20000, key: 'NeedLogin' });
    expect(envelope.calls()).toBe(1);
    const http4xx = scripted([{ events: [], fail: new StreamError('HTTP 404', 404) }]);
    await expect(run(http4xx.open).promise).rejects.toMatchObject({ code: 0 });
    expect(http4xx.calls()).toBe(1);
  });

  it('stops retrying when aborted during the delay', async () => {
    const abort = new AbortController();
    const s = scripted([{ events: [], fail: new StreamError('down') }]);
    const p = sendAgentMessage(body, { open: s.open, signal: abort.signal, onDelta: () => undefined });
    abort.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('requestMessages', () => {
  it('puts the text part first and the image part after', () => {
    expect(requestMessages('look', '/files/a.png')).toEqual([
      { role: 'user', content_type: 'text', parts: ['look'], image_url: '' },
      { role: 'user', content_type: 'image', parts: [], image_url: '/files/a.png' },
    ]);
    expect(requestMessages('', '/files/a.png')).toHaveLength(1);
  });
});
