// The account mail calls (issue 21): verification codes, forgot and reset,
// change of e-mail and password. Thin typed wrappers over the one client;
// `locale` picks the mail's language on the server.
import type { ApiClient } from '../api/client';
import type { AccountInfo } from '../api/types';
import { atom } from '../state/jotai';

export interface MailConfig {
  /** Whether this server sends mail (an SMTP server is configured). */
  enabled: boolean;
  code_ttl_secs: number;
}

/** The server's mail config once read (null before). */
export const mailConfigAtom = atom<MailConfig | null>(null);

/** The mail's language from the page's locale (`zhCN` → `zh`). */
export function mailLocale(locale: string): 'en' | 'zh' {
  return locale.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

export const mailApi = {
  config: (api: ApiClient) => api.post<MailConfig>('/api/v1/account/mail/config'),
  sendCode: (api: ApiClient, locale: string) =>
    api.post<{ expires_in: number }>('/api/v1/account/verify/send', { locale: mailLocale(locale) }),
  checkCode: (api: ApiClient, code: string) => api.post<AccountInfo>('/api/v1/account/verify/check', { code }),
  forgot: (api: ApiClient, email: string, locale: string) =>
    api.post<null>('/api/v1/account/forgot', { email, locale: mailLocale(locale) }),
  reset: (api: ApiClient, token: string, password: string, locale: string) =>
    api.post<null>('/api/v1/account/reset', { token, password, locale: mailLocale(locale) }),
  changeEmail: (api: ApiClient, email: string, password: string, locale: string) =>
    api.post<{ expires_in: number }>('/api/v1/account/email/change', { email, password, locale: mailLocale(locale) }),
  confirmEmail: (api: ApiClient, code: string, locale: string) =>
    api.post<AccountInfo>('/api/v1/account/email/confirm', { code, locale: mailLocale(locale) }),
  changePassword: (api: ApiClient, oldPassword: string, password: string, locale: string) =>
    api.post<{ ended_sessions: number }>('/api/v1/account/password/change', {
      old_password: oldPassword,
      password,
      locale: mailLocale(locale),
    }),
};
