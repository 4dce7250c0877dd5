import { describe, expect, it } from 'vitest';
import { MESSAGE_PAGE, TavernApi } from './api';

/** A fake client that records each call and answers from a table. */
function fake(answers: Record<string, unknown>) {
  const calls: { path: string; body: unknown }[] = [];
  const api = {
    post<T>(path: string, body?: unknown): Promise<T> {
      calls.push({ path, body });
      return Promise.resolve(answers[path] as T);
    },
  };
  return { calls, tavern: new TavernApi(api as never) };
}

describe('the tavern calls added for templates, recents, settings, polish, paging and quick chat', () => {
  it('sends the exact bodies of chat-api.md', async () => {
    const { calls, tavern } = fake({
      '/api/v1/tavern-pro/preset/list': { items: [{ id: 'a', title: 'A', persona: 'p', greeting: 'g', scenario: 's' }] },
      '/api/v1/character/latest': { items: [{ id: 'c', name: 'C', last_chat_at: 1_700_000_000_000 }] },
      '/api/v1/character/session/edit': { session_id: 's', title: 'T', settings: { temperature: 1, top_p: 0.5, max_reply_tokens: 64 } },
      '/api/v1/character/session/delete-all': { deleted: 3 },
      '/api/v1/character/quick-chat/can-talk': { can_talk: false, reason: 'NeedLogin' },
      '/api/v1/character/message/polish': { content: 'Polished.' },
      '/api/v1/character/session/message/list': { items: [{ msg_id: 'b', idx: 2 }, { msg_id: 'a', idx: 1 }] },
    });
    expect((await tavern.presets())[0]?.title).toBe('A');
    expect((await tavern.latest(12))[0]?.last_chat_at).toBe(1_700_000_000_000);
    await tavern.removeRecent('c');
    const s = await tavern.editSession('s', { title: 'T', settings: { temperature: 1, top_p: 0.5, max_reply_tokens: 64 } });
    expect(s?.settings?.max_reply_tokens).toBe(64);
    expect(await tavern.deleteAllSessions('c')).toBe(3);
    expect(await tavern.canTalk('c')).toEqual({ can_talk: false, reason: 'NeedLogin' });
    expect(await tavern.polish('s', 'draft')).toBe('Polished.');
    expect((await tavern.messages('s', MESSAGE_PAGE, 40)).map((m) => m.idx)).toEqual([1, 2]);
    await tavern.messages('s');
    expect(calls).toEqual([
      { path: '/api/v1/tavern-pro/preset/list', body: {} },
      { path: '/api/v1/character/latest', body: { limit: 12 } },
      { path: '/api/v1/tavern-pro/recently/remove', body: { id: 'c' } },
      { path: '/api/v1/character/session/edit', body: { session_id: 's', title: 'T', settings: { temperature: 1, top_p: 0.5, max_reply_tokens: 64 } } },
      { path: '/api/v1/character/session/delete-all', body: { character_id: 'c' } },
      { path: '/api/v1/character/quick-chat/can-talk', body: { character_id: 'c' } },
      { path: '/api/v1/character/message/polish', body: { session_id: 's', content: 'draft' } },
      { path: '/api/v1/character/session/message/list', body: { session_id: 's', limit: MESSAGE_PAGE, before_idx: 40 } },
      { path: '/api/v1/character/session/message/list', body: { session_id: 's', limit: MESSAGE_PAGE } },
    ]);
  });
});
