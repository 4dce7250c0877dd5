// Translation lookup and the mapping from an API error to a message (spec 2
// §8 "Login codes": the server's key when we know it, else the code's key,
// else the server's own message, else LoginFailed).
import { isApiError } from '../api/client';
import type { Locale } from '../router/locale';
import { en } from './en';
import type { MessageKey, MessageTable } from './en';
import { zh } from './zh';

export type { MessageKey } from './en';

/** Tables by locale; a locale without one uses English. */
const tables: Partial<Record<Locale, MessageTable>> = { en, zhCN: zh };

export function messagesFor(locale: Locale): MessageTable {
  return tables[locale] ?? en;
}

/**
 * The language the page is actually shown in, as a BCP 47 tag for
 * `<html lang>`: the locale when it has a table, else English.
 */
export function contentLanguage(locale: Locale): string {
  if (!tables[locale]) return 'en';
  return locale.replace(/^([a-z]{2,3})([A-Z]{2})$/, '$1-$2');
}

export function isMessageKey(key: string): key is MessageKey {
  return Object.prototype.hasOwnProperty.call(en, key);
}

/** A server message key we can translate (page strings have dots; server keys never do). */
function isServerKey(key: string): key is MessageKey {
  return !key.includes('.') && isMessageKey(key);
}

/** Translates `key`, replacing `{name}` placeholders from `params`. */
export function translate(
  table: MessageTable,
  key: MessageKey,
  params?: Readonly<Record<string, string | number>>,
): string {
  const text = table[key];
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : whole,
  );
}

/** Login codes of spec 2 §8 and the message each one shows. */
export const LOGIN_CODE_KEYS: Readonly<Record<number, MessageKey>> = {
  20000: 'NeedLogin',
  20001: 'AccountNoExistent',
  20002: 'ResetLinkExpired',
  20003: 'ResetLinkExpired',
  20004: 'AccountDisabled',
  20005: 'PasswordError',
  20010: 'actNotAvailable',
  20100: 'InvalidEmail',
  20101: 'EmailRegistered',
  20102: 'PasswordInvalid',
  20103: 'NameInvalid',
  20105: 'VerifiCodeError',
  40000: 'InvalidParams',
  40002: 'InviteCodeError',
  42900: 'TooManyRequests',
};

/** A message to show for a failure: translated where possible. */
export type ErrorMessage = { key: MessageKey } | { text: string };

export function errorMessage(error: unknown): ErrorMessage {
  if (isApiError(error)) {
    if (error.key !== null && isServerKey(error.key)) return { key: error.key };
    const byCode = LOGIN_CODE_KEYS[error.code];
    if (byCode) return { key: byCode };
    if (error.msg.trim() !== '') return { text: error.msg };
  }
  return { key: 'LoginFailed' };
}

export function renderErrorMessage(table: MessageTable, message: ErrorMessage): string {
  return 'key' in message ? translate(table, message.key) : message.text;
}
