import { describe, expect, it } from 'vitest';
import { ApiClient } from '../api/client';
import { mailApi, mailLocale } from './mailApi';

function recordingClient() {
  const calls: { url: string; body: unknown }[] = [];
  const api = new ApiClient({
    getToken: () => 'tok',
    fetch: (input, init) => {
      calls.push({ url: String(input), body: init?.body ? JSON.parse(String(init.body)) : undefined });
      return Promise.resolve(
        new Response(JSON.stringify({ status: { code: 10000, msg: 'ok' }, data: { expires_in: 600 } }), {
          headers: { 'Content-Type': 'application/json' },
        }),
      );
    },
  });
  return { api, calls };
}

describe('mail calls', () => {
  it('maps page locales to the mail languages', () => {
    expect(mailLocale('zhCN')).toBe('zh');
    expect(mailLocale('en')).toBe('en');
    expect(mailLocale('fr')).toBe('en');
  });

  it('posts forgot and reset as the Contract names them', async () => {
    const { api, calls } = recordingClient();
    await mailApi.forgot(api, 'a@example.com', 'zhCN');
    await mailApi.reset(api, 'ab'.repeat(32), 'new password 1', 'en');
    await mailApi.changePassword(api, 'old password', 'new password 1', 'en');
    expect(calls).toEqual([
      { url: '/api/v1/account/forgot', body: { email: 'a@example.com', locale: 'zh' } },
      { url: '/api/v1/account/reset', body: { token: 'ab'.repeat(32), password: 'new password 1', locale: 'en' } },
      {
        url: '/api/v1/account/password/change',
        body: { old_password: 'old password', password: 'new password 1', locale: 'en' },
      },
    ]);
  });
});
