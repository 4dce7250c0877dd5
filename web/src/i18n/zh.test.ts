import { describe, expect, it } from 'vitest';
import { en } from './en';
import type { MessageKey } from './en';
import { contentLanguage, errorMessage, messagesFor, renderErrorMessage, translate } from './messages';
import { untranslatedKeys, zh, zh_partial } from './zh';
import { en_video } from './en.video';
import { en_moderation } from './en.moderation';
import { ApiError } from '../api/client';

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('Chinese table', () => {
  it('is the zhCN table and sets <html lang>', () => {
    expect(messagesFor('zhCN')).toBe(zh);
    expect(contentLanguage('zhCN')).toBe('zh-CN');
    expect(translate(messagesFor('zhCN'), 'login.success', { name: 'Ada' })).toBe('欢迎，Ada！');
  });

  it('translates the login flow and its error keys', () => {
    for (const key of ['login.titleLogin', 'login.email', 'login.password', 'header.logIn', 'home.visitor', 'PasswordError', 'AccountDisabled', 'NeedLogin'] as const) {
      expect(zh[key], key).not.toBe(en[key]);
    }
    const table = messagesFor('zhCN');
    expect(renderErrorMessage(table, errorMessage(new ApiError({ code: 20005, key: 'PasswordError', msg: '' }, 400)))).toBe('密码错误，请重试。');
  });

  it('translates every text of the video page and its upload messages', () => {
    for (const key of [...(Object.keys(en_video) as MessageKey[]), 'uploadError', 'uploadVideoError'] as MessageKey[]) {
      expect(zh_partial[key], key).toBeTruthy();
      expect(zh[key], key).not.toBe(en[key]);
    }
  });

  it('translates posting to the square and a video post’s page (player, plays, report)', () => {
    const keys = (Object.keys(en) as MessageKey[]).filter((k) => k.startsWith('works.publish.') || k.startsWith('works.report.') || k.startsWith('works.form.'));
    expect(keys.length).toBeGreaterThan(30);
    for (const key of [...keys, 'works.video', 'works.plays', 'tasks.action.post'] as MessageKey[]) {
      expect(zh_partial[key], key).toBeTruthy();
      expect(zh[key], key).not.toBe(en[key]);
    }
  });

  it('translates every text of trust and safety (reports, appeals, the console)', () => {
    for (const key of Object.keys(en_moderation) as MessageKey[]) {
      expect(zh_partial[key], key).toBeTruthy();
    }
  });

  it('keeps the placeholders of every English text', () => {
    for (const [key, text] of Object.entries(zh_partial) as Array<[MessageKey, string]>) {
      expect(placeholders(text), key).toEqual(placeholders(en[key]));
    }
  });

  it('falls back to English for keys it lacks', () => {
    const missing = untranslatedKeys();
    for (const key of missing) expect(zh[key]).toBe(en[key]);
    // Every key resolves to a non-empty text either way.
    for (const key of Object.keys(en) as MessageKey[]) expect(zh[key].length, key).toBeGreaterThan(0);
  });

  it('leaves other locales in English', () => {
    expect(messagesFor('ja')).toBe(en);
  });
});

describe('Chinese table of third-party sign-in', () => {
  it('translates every key of en.oidc.ts', async () => {
    const { en_oidc } = await import('./en.oidc');
    for (const key of Object.keys(en_oidc) as MessageKey[]) {
      expect(zh_partial[key], key).toBeTruthy();
    }
  });
});
