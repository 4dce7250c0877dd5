// Third-party sign-in (issue 21 item 2) as plain functions: the providers the
// operator enabled, starting a sign-in or a link (the attempt is remembered
// in sessionStorage until the provider sends the browser back), reading the
// callback, and loginThird's channel mapping (spec 2 §7).
import type { ApiClient } from '../api/client';
import type { LoginData } from '../api/types';
import type { MessageKey } from '../i18n/messages';

export type ProviderKind = 'google' | 'discord' | 'oidc';

export interface OidcProvider {
  name: string;
  kind: ProviderKind;
  /** The button's text the operator chose. */
  label: string;
  /** The spec's login type: Google 2, Discord 3, other OpenID providers 6. */
  type: number;
}

/** A sign-in or link attempt the provider will send the browser back from. */
export interface PendingOidc {
  session_id: string;
  provider: string;
  type: number;
  /**
   * `cancel`: the sign-in proves the account to cancel its scheduled deletion;
   * `delete`: a fresh sign-in of the signed-in account proves it to ask for
   * its deletion (an account without a password or phone).
   */
  purpose: 'login' | 'link' | 'cancel' | 'delete';
  /** The same-site path to go back to afterwards. */
  back: string;
}

/** A provider sign-in answer: a login answer plus loginThird's fields. */
export interface ThirdLoginData extends LoginData {
  new_account: boolean;
  needs_profile: boolean;
  third: { session_id: string; id_token: string | null; channel_type: number | null };
}

export interface LinkedProvider {
  provider: string;
  email: string | null;
  linked_at: number;
}

export interface LinkedAnswer {
  items: LinkedProvider[];
  has_password: boolean;
}

export const PENDING_KEY = 'easel.oidc.pending';
export const CALLBACK_PATH = '/oidc/callback';

/** loginThird's channel: type 2 -> 2, 3 -> 4, 6 -> 5 (spec 2 §7); null for other types. */
export function channelType(type: number): number | null {
  switch (type) {
    case 2:
      return 2;
    case 3:
      return 4;
    case 6:
      return 5;
    default:
      return null;
  }
}

type Poster = Pick<ApiClient, 'post'>;

export async function listProviders(api: Poster): Promise<OidcProvider[]> {
  const data = await api.post<{ items: OidcProvider[] }>('/api/v1/account/oidc/providers');
  return data.items;
}

/** Starts an attempt: remembers it, answers the provider's URL to send the browser to. */
export async function startOidc(
  api: Poster,
  storage: Pick<Storage, 'setItem'>,
  provider: string,
  purpose: PendingOidc['purpose'],
  back: string,
): Promise<string> {
  const data = await api.post<{ url: string; session_id: string; type: number }>('/api/v1/account/oidc/start', {
    provider,
    link: purpose === 'link',
    reauth: purpose === 'delete',
  });
  const pending: PendingOidc = { session_id: data.session_id, provider, type: data.type, purpose, back };
  storage.setItem(PENDING_KEY, JSON.stringify(pending));
  return data.url;
}

export type CallbackRead =
  | { ok: true; code: string; pending: PendingOidc }
  | { ok: false; message: MessageKey };

function isPending(v: unknown): v is PendingOidc {
  if (typeof v !== 'object' || v === null) return false;
  const p = v as Record<string, unknown>;
  return (
    typeof p.session_id === 'string' &&
    typeof p.provider === 'string' &&
    typeof p.type === 'number' &&
    (p.purpose === 'login' || p.purpose === 'link' || p.purpose === 'cancel' || p.purpose === 'delete') &&
    typeof p.back === 'string'
  );
}

function parsePending(raw: string | null): unknown {
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return null;
  }
}

/**
 * Reads the provider's redirect (`?code=...&state=...` or `?error=...`) and
 * takes the remembered attempt. A state other than this tab's attempt is
 * refused here already (the server refuses it too).
 */
export function readCallback(search: string, storage: Pick<Storage, 'getItem' | 'removeItem'>): CallbackRead {
  const q = new URLSearchParams(search);
  const pending = parsePending(storage.getItem(PENDING_KEY));
  storage.removeItem(PENDING_KEY);
  if (q.get('error') !== null) return { ok: false, message: 'oidc.denied' };
  const code = q.get('code');
  const state = q.get('state');
  if (!code || !state || !isPending(pending) || pending.session_id !== state) {
    return { ok: false, message: 'OidcStateInvalid' };
  }
  return { ok: true, code, pending };
}

/** `login-in` with the provider's type, the code as `token` and the state as `session_id`. */
export function loginThird(api: Poster, code: string, pending: PendingOidc): Promise<ThirdLoginData> {
  return api.post<ThirdLoginData>('/api/v1/account/login-in', {
    type: String(pending.type),
    token: code,
    session_id: pending.session_id,
  });
}

/** `account/delete/cancel` with a provider sign-in: answers like a login. */
export function cancelDeletionThird(api: Poster, code: string, pending: PendingOidc): Promise<LoginData> {
  return api.post<LoginData>('/api/v1/account/delete/cancel', { session_id: pending.session_id, token: code });
}

/** `account/delete/request` proved by a fresh provider sign-in of the signed-in account. */
export function requestDeletionThird<T>(api: Poster, code: string, pending: PendingOidc): Promise<T> {
  return api.post<T>('/api/v1/account/delete/request', { session_id: pending.session_id, token: code });
}

export function linkProvider(api: Poster, code: string, pending: PendingOidc): Promise<LinkedAnswer> {
  return api.post<LinkedAnswer>('/api/v1/account/oidc/link', { session_id: pending.session_id, token: code });
}

export function linkedProviders(api: Poster): Promise<LinkedAnswer> {
  return api.post<LinkedAnswer>('/api/v1/account/oidc/linked');
}

export function unlinkProvider(api: Poster, provider: string): Promise<LinkedAnswer> {
  return api.post<LinkedAnswer>('/api/v1/account/oidc/unlink', { provider });
}

/**
 * loginThird (spec 2 §4, §7): after a provider sign-in the page tells a
 * third-party SDK; Easel embeds none, so it is a DOM event an operator's
 * script may listen to (`easel:loginThird`).
 */
export function announceLoginThird(target: Pick<EventTarget, 'dispatchEvent'>, data: ThirdLoginData): void {
  target.dispatchEvent(new CustomEvent('easel:loginThird', { detail: data.third }));
}
