import { describe, expect, it } from 'vitest';
import { ModerationApi } from './api';

function fake(answers: Record<string, unknown> = {}) {
  const calls: Array<{ path: string; body: unknown }> = [];
  const api = new ModerationApi({
    post: async <T,>(path: string, body?: unknown): Promise<T> => {
      calls.push({ path, body });
      return (answers[path] ?? {}) as T;
    },
  });
  return { api, calls };
}

describe('moderation calls', () => {
  it('sends the bodies of MOD_API.md', async () => {
    const { api, calls } = fake();
    await api.report({ obj_id: 'w1', obj_type: 4 }, 'spam', '  ads  ');
    await api.act('hide', { obj_id: 'w1', obj_type: 4 }, ' nudity ');
    await api.act('feedBan', { obj_id: 'w1', obj_type: 4 }, 'x');
    await api.act('unhide', { obj_id: 'c1', obj_type: 30 }, 'ok');
    await api.ban(' a2 ', 'spam', 86400);
    await api.appeal({ obj_id: 'w1', obj_type: 4 }, ' it is a statue ');
    await api.decide('ap1', { nsfw: true, restore: true }, 'fine');
    await api.queue('appeal', 'c9');
    await api.queue(null, null);
    expect(calls).toEqual([
      { path: '/api/v1/report', body: { obj_id: 'w1', obj_type: 4, reason: 'spam', text: 'ads' } },
      { path: '/api/v1/review/hide', body: { obj_id: 'w1', obj_type: 4, reason: 'nudity' } },
      { path: '/api/v1/review/ban', body: { obj_id: 'w1', obj_type: 4, reason: 'x' } },
      { path: '/api/v1/review/unhide', body: { obj_id: 'c1', obj_type: 30, reason: 'ok' } },
      { path: '/api/v1/moderation/ban', body: { account_id: 'a2', reason: 'spam', duration_secs: 86400 } },
      { path: '/api/v1/resource/nsfw-appeal/create', body: { obj_id: 'w1', obj_type: 4, text: 'it is a statue' } },
      { path: '/api/v1/moderation/appeal/decide', body: { appeal_id: 'ap1', nsfw: true, restore: true, reason: 'fine' } },
      { path: '/api/v1/moderation/queue', body: { limit: 20, kind: 'appeal', cursor: 'c9' } },
      { path: '/api/v1/moderation/queue', body: { limit: 20 } },
    ]);
  });

  it('reads the role and pages defensively', async () => {
    expect(await fake({ '/api/v1/moderation/me': { role: 'moderator' } }).api.role()).toBe('moderator');
    expect(await fake({ '/api/v1/moderation/me': { role: 'admin' } }).api.role()).toBe('user');
    expect(await fake({ '/api/v1/moderation/audit/list': { items: [{ id: 'e1' }], cursor: '' } }).api.audit(null)).toEqual({ items: [{ id: 'e1' }], cursor: null });
    expect(await fake({ '/api/v1/moderation/ban/list': null }).api.bans(null)).toEqual({ items: [], cursor: null });
  });
});
