import { describe, expect, it } from 'vitest';
import { applyDelta, finishReply, fromHistory, fromHistoryItems, lastServerId, millis, parseAgentEvent } from './chat';

describe('agent chat messages', () => {
  it('reads history items (msg_id, role, content.parts) into messages with parts', () => {
    const m = fromHistory({
      msg_id: 'a1',
      parent_msg_id: 'u1',
      role: 'assistant',
      content: { parts: ['Try this: """a red fox', ' in snow"""'] },
      content_type: 'text',
      image_url: null,
      create_at: 1_700_000_000,
    });
    expect(m.id).toBe('a1');
    expect(m.type).toBe('assistant');
    expect(m.text).toBe('Try this: """a red fox in snow"""');
    expect(m.timestamp).toBe(1_700_000_000_000);
    expect(m.isTemp).toBe(false);
    expect(m.hasMultipleParts).toBe(true);
    expect(m.contentParts.map((p) => [p.type, p.displayText, p.isComplete])).toEqual([
      ['normal', 'Try this:', true],
      ['prompt', 'a red fox in snow', true],
    ]);
    const u = fromHistory({ msg_id: 'u1', parent_msg_id: '', role: 'user', content: { parts: ['hi'] }, content_type: 'image', image_url: '/files/x.png', create_at: 1 });
    expect(u.type).toBe('user');
    expect(u.imageUrl).toBe('/files/x.png');
    expect(u.contentParts).toEqual([]);
  });

  it('shows the text and image of one turn, stored as two user messages, as one message', () => {
    const base = { parent_msg_id: '', content_type: 'text', image_url: null, create_at: 5 };
    const ms = fromHistoryItems([
      { ...base, msg_id: 'u1', role: 'user', content: { parts: ['make it dawn'] } },
      { ...base, msg_id: 'u2', role: 'user', content: { parts: [] }, content_type: 'image', image_url: '/files/d.png' },
      { ...base, msg_id: 'a1', role: 'assistant', content: { parts: ['Sure'] } },
      { ...base, msg_id: 'u3', role: 'user', content: { parts: ['again'] }, create_at: 9 },
    ]);
    expect(ms.map((m) => [m.id, m.type, m.text, m.imageUrl])).toEqual([
      ['u2', 'user', 'make it dawn', '/files/d.png'],
      ['a1', 'assistant', 'Sure', null],
      ['u3', 'user', 'again', null],
    ]);
  });

  it('grows a temporary reply delta by delta, the prompt incomplete until closed', () => {
    let ms = applyDelta([], 'r1', 'Here: """a fox', 5);
    expect(ms).toHaveLength(1);
    expect(ms[0]?.isTemp).toBe(true);
    expect(ms[0]?.contentParts.at(-1)).toMatchObject({ type: 'prompt', isComplete: false });
    ms = applyDelta(ms, 'r1', ' at dawn"""', 6);
    expect(ms[0]?.text).toBe('Here: """a fox at dawn"""');
    expect(ms[0]?.contentParts.at(-1)).toMatchObject({ type: 'prompt', displayText: 'a fox at dawn', isComplete: true });
    expect(lastServerId(ms)).toBe('');
    ms = finishReply(ms, 'r1');
    expect(ms[0]?.isTemp).toBe(false);
    expect(lastServerId(ms)).toBe('r1');
  });

  it('parses stream events: deltas and error statuses', () => {
    expect(parseAgentEvent('{"status":{"code":10000},"data":{"msg_id":"m","delta":"x","done":false}}')).toEqual({
      kind: 'delta',
      msgId: 'm',
      delta: 'x',
      done: false,
    });
    expect(parseAgentEvent('{"status":{"code":20000,"key":"NeedLogin","msg":"m"}}')).toEqual({ kind: 'error', code: 20000, key: 'NeedLogin', msg: 'm' });
    expect(parseAgentEvent('junk')).toBeNull();
    expect(millis(1_700_000_000_123)).toBe(1_700_000_000_123);
  });
});
