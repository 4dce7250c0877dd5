import { describe, expect, it } from 'vitest';
import {
  addLocalUserMessage,
  applyFrame,
  EMPTY_LOG,
  ensureReply,
  lastReply,
  mergeList,
  mergeMessage,
  parseCard,
  parseCharacter,
  parseMessage,
  parseStreamFrame,
  removeMessage,
  streamingMessage,
} from './model';
import type { ChatLog, ChatMessage, StreamFrame } from './model';

const S = 'sess-1';

function frame(msg_id: string, seq: number, delta: string, done = false, state: StreamFrame['state'] = null): StreamFrame {
  return { session_id: S, msg_id, seq, delta, done, state, error: null };
}

function message(fields: Partial<ChatMessage> & Pick<ChatMessage, 'msg_id' | 'idx'>): ChatMessage {
  return {
    role: 'assistant',
    content: '',
    create_at: 1,
    state: 'done',
    liked: 0,
    model: null,
    error: null,
    seq: 0,
    ...fields,
  };
}

const greeting = message({ msg_id: 'g', idx: 0, content: 'Hello there.' });
const loaded: ChatLog = mergeList(EMPTY_LOG, [greeting]);

function run(log: ChatLog, frames: StreamFrame[]): ChatLog {
  return frames.reduce(applyFrame, log);
}

function text(log: ChatLog, id: string): string | undefined {
  return log.messages.find((m) => m.msg_id === id)?.content;
}

describe('applyFrame', () => {
  it('appends frames in order and finishes on done', () => {
    let log = ensureReply(loaded, 'r');
    log = run(log, [frame('r', 1, 'Once'), frame('r', 2, ' upon')]);
    expect(text(log, 'r')).toBe('Once upon');
    expect(streamingMessage(log)?.msg_id).toBe('r');
    log = applyFrame(log, frame('r', 3, '', true, 'done'));
    const reply = log.messages.find((m) => m.msg_id === 'r')!;
    expect(reply.state).toBe('done');
    expect(reply.seq).toBe(3);
    expect(streamingMessage(log)).toBeNull();
    expect(lastReply(log)?.msg_id).toBe('r');
  });

  it('ignores repeated and old frames', () => {
    let log = run(ensureReply(loaded, 'r'), [frame('r', 1, 'a'), frame('r', 2, 'b')]);
    const same = run(log, [frame('r', 2, 'b'), frame('r', 1, 'a')]);
    expect(same).toBe(log);
    log = applyFrame(log, frame('r', 3, 'c'));
    expect(text(log, 'r')).toBe('abc');
  });

  it('starts an unknown reply from its first frame (frames before chat/start answered)', () => {
    const log = run(loaded, [frame('r', 1, 'Hi'), frame('r', 2, '!')]);
    expect(text(log, 'r')).toBe('Hi!');
    expect(log.messages.map((m) => m.msg_id)).toEqual(['g', 'r']);
    // chat/start's answer then changes nothing.
    expect(ensureReply(log, 'r')).toBe(log);
  });

  it('holds frames past a gap and applies them once the gap is filled', () => {
    let log = ensureReply(loaded, 'r');
    log = run(log, [frame('r', 1, 'a'), frame('r', 3, 'c'), frame('r', 4, 'd')]);
    expect(text(log, 'r')).toBe('a');
    expect(log.gap).toBe(true);
    log = applyFrame(log, frame('r', 2, 'b'));
    expect(text(log, 'r')).toBe('abcd');
    expect(log.gap).toBe(false);
    expect(log.pending).toEqual({});
  });

  it('keeps the cancelled state and partial text', () => {
    const log = run(ensureReply(loaded, 'r'), [frame('r', 1, 'half'), frame('r', 2, '', true, 'cancelled')]);
    const reply = log.messages.find((m) => m.msg_id === 'r')!;
    expect(reply.content).toBe('half');
    expect(reply.state).toBe('cancelled');
  });

  it('continues a reply under the same id with its seq counting on', () => {
    let log = run(ensureReply(loaded, 'r'), [frame('r', 1, 'One.'), frame('r', 2, '', true, 'done')]);
    log = run(log, [frame('r', 3, ' Two.'), frame('r', 4, '', true, 'done')]);
    expect(text(log, 'r')).toBe('One. Two.');
  });
});

describe('resume', () => {
  it('merges the server state and applies only later frames', () => {
    // The page loaded mid-reply: frames 4 and 5 came before the server's answer (seq 3).
    let log: ChatLog = { ...EMPTY_LOG };
    log = run(log, [frame('r', 4, ' d'), frame('r', 5, ' e')]);
    expect(log.gap).toBe(true);
    log = mergeList(log, [greeting, message({ msg_id: 'r', idx: 1, content: 'a b c', seq: 3, state: 'streaming' })]);
    expect(text(log, 'r')).toBe('a b c d e');
    expect(log.gap).toBe(false);
    log = run(log, [frame('r', 5, ' e'), frame('r', 6, ' f')]);
    expect(text(log, 'r')).toBe('a b c d e f');
  });

  it('never goes back to a shorter server copy', () => {
    let log = run(ensureReply(loaded, 'r'), [frame('r', 1, 'a'), frame('r', 2, 'b'), frame('r', 3, 'c')]);
    log = mergeMessage(log, message({ msg_id: 'r', idx: 1, content: 'ab', seq: 2, state: 'streaming' }));
    expect(text(log, 'r')).toBe('abc');
    expect(log.messages.find((m) => m.msg_id === 'r')!.seq).toBe(3);
  });

  it('takes the server copy after a reconnect that lost frames', () => {
    let log = run(ensureReply(loaded, 'r'), [frame('r', 1, 'a')]);
    // Frames 2..6 lost while offline; the reply has finished.
    log = mergeMessage(log, message({ msg_id: 'r', idx: 1, content: 'abcdef', seq: 7, state: 'done' }));
    expect(text(log, 'r')).toBe('abcdef');
    expect(streamingMessage(log)).toBeNull();
    // A late duplicate changes nothing.
    expect(applyFrame(log, frame('r', 6, 'f'))).toBe(log);
  });

  it('keeps a just-sent message until the list holds it, then drops the local copy', () => {
    let log = addLocalUserMessage(loaded, 'Hi!', 'local-1');
    log = mergeList(log, [greeting]);
    expect(log.messages.map((m) => m.content)).toEqual(['Hello there.', 'Hi!']);
    log = ensureReply(log, 'r');
    log = mergeList(log, [
      greeting,
      message({ msg_id: 'u', idx: 1, role: 'user', content: 'Hi!' }),
      message({ msg_id: 'r', idx: 2, state: 'streaming' }),
    ]);
    expect(log.messages.map((m) => m.msg_id)).toEqual(['g', 'u', 'r']);
  });

  it('keeps a streamed reply the list predates, and removes a deleted message', () => {
    let log = run(ensureReply(loaded, 'r'), [frame('r', 1, 'x')]);
    log = mergeList(log, [greeting]);
    expect(text(log, 'r')).toBe('x');
    log = removeMessage(log, 'r');
    expect(log.messages.map((m) => m.msg_id)).toEqual(['g']);
  });
});

describe('decoders', () => {
  it('reads frames and refuses bad ones', () => {
    expect(parseStreamFrame({ session_id: S, msg_id: 'm', seq: 2, delta: 'x', done: false })).toEqual(frame('m', 2, 'x'));
    expect(parseStreamFrame({ session_id: S, msg_id: 'm', seq: 0, delta: 'x' })).toBeNull();
    expect(parseStreamFrame({ msg_id: 'm', seq: 1 })).toBeNull();
    expect(parseStreamFrame({ session_id: S, msg_id: 'm', seq: 3, delta: '', done: true, state: 'failed', error: 'boom' })?.error).toBe('boom');
  });

  it('reads messages, cards and characters tolerantly', () => {
    const m = parseMessage({ msg_id: 'm', idx: 2, role: 'assistant', content: 'x', state: 'cancelled', liked: 1, model: { name: 'scripted', label: 'Scripted (test)', neural: false }, seq: 4 });
    expect(m).toMatchObject({ state: 'cancelled', liked: 1, seq: 4, model: { label: 'Scripted (test)', neural: false } });
    expect(parseMessage({})).toBeNull();
    expect(parseCard({ id: 'c', name: 'Ada', gender: 'robot', character_type: 2 })).toMatchObject({ gender: 'other', character_type: 2, tags: [] });
    expect(parseCharacter({ id: 'c', name: 'Ada', published: false, is_owner: true })).toMatchObject({ published: false, is_owner: true });
  });
});
