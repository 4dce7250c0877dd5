import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { en } from './en';
// The server's catalogue itself, so a key added there without a text here fails.
import errorCatalogue from '../../../protocol/src/error.rs?raw';
import { contentLanguage, errorMessage, LOGIN_CODE_KEYS, messagesFor, renderErrorMessage, translate } from './messages';

function apiError(code: number, key: string | null, msg = '') {
  return new ApiError({ code, key, msg }, 400);
}

describe('message table', () => {
  it('translates every key of the server catalogue (protocol/src/error.rs)', () => {
    const keys = [...errorCatalogue.matchAll(/= \(\d+, "([^"]+)",/g)].map((m) => m[1]);
    expect(keys.length).toBeGreaterThan(20);
    for (const key of keys) {
      expect(en, key).toHaveProperty(key as string);
    }
  });

  it('has the login and common keys', () => {
    for (const key of [
      'AccountNoExistent', 'AccountDisabled', 'PasswordError', 'ResetLinkExpired', 'actNotAvailable',
      'InvalidEmail', 'EmailRegistered', 'VerifiCodeError', 'InviteCodeError', 'PasswordInvalid',
      'NameInvalid', 'NeedLogin', 'TooManyRequests', 'InvalidParams', 'LoginFailed',
    ]) {
      expect(en, key).toHaveProperty(key);
      expect((en as Record<string, string>)[key]?.length, key).toBeGreaterThan(0);
    }
  });

  it('falls back to English for locales without a table', () => {
    expect(messagesFor('ja')).toBe(en);
    expect(contentLanguage('ja')).toBe('en');
    expect(contentLanguage('en')).toBe('en');
  });

  it('fills placeholders and leaves unknown ones', () => {
    expect(translate(en, 'login.success', { name: 'Ada' })).toBe('Welcome, Ada!');
    expect(translate(en, 'login.success', {})).toBe('Welcome, {name}!');
  });
});

describe('login error -> message (spec 2 §8)', () => {
  it('uses the server key when it is known', () => {
    expect(errorMessage(apiError(20005, 'PasswordError', 'wrong password'))).toEqual({ key: 'PasswordError' });
    expect(errorMessage(apiError(42900, 'TooManyRequests'))).toEqual({ key: 'TooManyRequests' });
  });

  it('maps the spec codes when the key is missing or unknown', () => {
    const table: Array<[number, string]> = [
      [20001, 'AccountNoExistent'],
      [20004, 'AccountDisabled'],
      [20005, 'PasswordError'],
      [20002, 'ResetLinkExpired'],
      [20003, 'ResetLinkExpired'],
      [20010, 'actNotAvailable'],
      [20100, 'InvalidEmail'],
      [20101, 'EmailRegistered'],
      [20105, 'VerifiCodeError'],
      [40002, 'InviteCodeError'],
    ];
    for (const [code, key] of table) {
      expect(LOGIN_CODE_KEYS[code]).toBe(key);
      expect(errorMessage(apiError(code, null, 'server text'))).toEqual({ key });
      expect(errorMessage(apiError(code, 'SomethingNew', 'server text'))).toEqual({ key });
    }
  });

  it("shows the server's message for other codes, else LoginFailed", () => {
    expect(errorMessage(apiError(29999, 'Unheard', 'try the other door'))).toEqual({ text: 'try the other door' });
    expect(errorMessage(apiError(29999, null, '  '))).toEqual({ key: 'LoginFailed' });
    expect(errorMessage(new Error('boom'))).toEqual({ key: 'LoginFailed' });
    expect(errorMessage('nope')).toEqual({ key: 'LoginFailed' });
  });

  it('does not treat page strings as server keys', () => {
    expect(errorMessage(apiError(29999, 'app.name', 'raw'))).toEqual({ text: 'raw' });
  });

  it('renders translated text', () => {
    expect(renderErrorMessage(en, { key: 'PasswordError' })).toBe(en.PasswordError);
    expect(renderErrorMessage(en, { text: 'as is' })).toBe('as is');
  });
});
