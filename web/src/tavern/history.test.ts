import { describe, expect, it } from 'vitest';
import { addLocalUserMessage, canLoadOlder, EMPTY_LOG, mergeList, olderCursor, parsePreset, parseRecent, parseSession, prependOlder } from './model';
import type { ChatMessage } from './model';

function msg(idx: number, role: ChatMessage['role'] = idx % 2 === 0 ? 'assistant' : 'user'): ChatMessage {
  return { msg_id: `m${idx}`, idx, role, content: `text ${idx}`, create_at: 1, state: 'done', liked: 0, model: null, error: null, seq: 0 };
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => msg(from + i));

describe('older pages', () => {
  it('offers an older page only when the first message held is not the first of the session', () => {
    expect(canLoadOlder(EMPTY_LOG)).toBe(false);
    expect(canLoadOlder(mergeList(EMPTY_LOG, range(0, 5)))).toBe(false);
    const newest = mergeList(EMPTY_LOG, range(40, 80));
    expect(canLoadOlder(newest)).toBe(true);
    expect(olderCursor(newest)).toBe(40);
    expect(canLoadOlder({ ...newest, olderEnd: true })).toBe(false);
  });

  it('puts an older page in front, without repeats, and knows when none is left', () => {
    const newest = mergeList(EMPTY_LOG, range(40, 80));
    const more = prependOlder(newest, range(0, 40), 40);
    expect(more.messages.map((m) => m.idx)).toEqual(range(0, 80).map((m) => m.idx));
    expect(more.olderEnd).toBe(false);
    // Idx 0 reached: nothing older even though the page was full.
    expect(canLoadOlder(more)).toBe(false);
    const short = prependOlder(mergeList(EMPTY_LOG, range(30, 70)), range(10, 30), 40);
    expect(short.olderEnd).toBe(true);
    expect(canLoadOlder(short)).toBe(false);
    // A page repeating what is held adds nothing and ends the paging.
    const same = prependOlder(newest, [msg(40)], 40);
    expect(same.messages).toHaveLength(40);
    expect(same.olderEnd).toBe(true);
  });

  it('keeps the older pages when the newest page is read again (after a send)', () => {
    let log = prependOlder(mergeList(EMPTY_LOG, range(40, 80)), range(0, 40), 40);
    log = addLocalUserMessage(log, 'hello', 'local-1');
    const again = [...range(42, 80), { ...msg(80, 'user'), content: 'hello' }, msg(81)];
    log = mergeList(log, again);
    expect(log.messages.map((m) => m.idx)).toEqual(range(0, 82).map((m) => m.idx));
    expect(log.messages.some((m) => m.local === true)).toBe(false);
  });

  it('an empty newest page keeps nothing from before', () => {
    const log = mergeList(mergeList(EMPTY_LOG, range(0, 3)), []);
    expect(log.messages).toEqual([]);
  });
});

describe('decoding', () => {
  it('reads a recently chatted card with its last chat time', () => {
    const r = parseRecent({ id: 'c1', name: 'Wren', gender: 'female', character_type: 1, last_chat_at: 1_700_000_000_000, owner: { id: 'u', name: 'Mira' } });
    expect(r?.name).toBe('Wren');
    expect(r?.last_chat_at).toBe(1_700_000_000_000);
    expect(parseRecent({ name: 'no id' })).toBeNull();
  });

  it('reads a starter template and drops nameless ones', () => {
    expect(parsePreset({ id: 'tutor', title: 'Patient tutor', persona: 'p', greeting: 'g', scenario: 's' })).toEqual({
      id: 'tutor',
      title: 'Patient tutor',
      persona: 'p',
      greeting: 'g',
      scenario: 's',
    });
    expect(parsePreset({ id: 'x', title: '' })).toBeNull();
  });

  it('reads a session with its settings', () => {
    const s = parseSession({ session_id: 's1', title: 'Night', settings: { temperature: 1.1, top_p: 0.8, max_reply_tokens: 300 } });
    expect(s?.settings).toEqual({ temperature: 1.1, top_p: 0.8, max_reply_tokens: 300 });
    expect(parseSession({ session_id: 's2' })?.settings).toBeNull();
  });
});
