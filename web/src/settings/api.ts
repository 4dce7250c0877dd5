// The account security and settings calls (issue 21, helper `sessions`):
// sessions, two-factor, preferences and the avatar. Wire types mirror
// backend/src/accounts/{sessions,totp,profile}.rs by hand.
import type { ApiClient } from '../api/client';
import type { LoginData } from '../api/types';

const V1 = '/api/v1/account/';

export interface SessionView {
  id: string;
  device: string;
  address: string;
  created_at: number;
  last_seen: number;
  current: boolean;
}

export interface TwoFactorStatus {
  enabled: boolean;
  recovery_left: number;
  enabled_at: number;
}

export interface Enrolment {
  secret: string;
  uri: string;
  /** `data:image/svg+xml;base64,...` */
  qr: string;
}

/** What `login-in` answers instead of a token when two-factor is on. */
export interface SecondStep {
  second_step: 'totp';
  challenge: string;
  expires_in: number;
  methods: ('totp' | 'recovery')[];
}

export function isSecondStep(data: unknown): data is SecondStep {
  return typeof data === 'object' && data !== null && (data as { second_step?: unknown }).second_step === 'totp';
}

export const NOTIFY_KINDS = ['like', 'collect', 'comment', 'reply', 'follow', 'sign_in', 'activity'] as const;
export type NotifyKind = (typeof NOTIFY_KINDS)[number];

export interface Prefs {
  links: string[];
  language: string;
  notify: Record<NotifyKind, boolean>;
}

export interface OwnProfile {
  id: string;
  name: string;
  bio: string;
  avatar: string | null;
}

export const securityApi = (api: ApiClient) => ({
  sessions: () => api.post<SessionView[]>(`${V1}sessions`, {}),
  revoke: (id: string) => api.post<null>(`${V1}sessions/revoke`, { id }),
  revokeOthers: () => api.post<{ ended: number }>(`${V1}sessions/revoke-others`, {}),
  twoFactorStatus: () => api.post<TwoFactorStatus>(`${V1}2fa/status`, {}),
  enrol: (password: string) => api.post<Enrolment>(`${V1}2fa/enrol`, { password }),
  confirm: (code: string) => api.post<{ recovery_codes: string[] }>(`${V1}2fa/confirm`, { code }),
  disable: (password: string, code: string) =>
    api.post<null>(`${V1}2fa/disable`, /^\d{6}$/.test(code.trim()) ? { password, code: code.trim() } : { password, recovery_code: code.trim() }),
  regenerateRecovery: (password: string, code: string) =>
    api.post<{ recovery_codes: string[] }>(`${V1}2fa/recovery`, { password, code: code.trim() }),
  secondStep: (challenge: string, code: string) =>
    api.post<LoginData>(
      `${V1}login-in/2fa`,
      /^\d{6}$/.test(code.trim()) ? { challenge, code: code.trim() } : { challenge, recovery_code: code.trim() },
    ),
  prefs: () => api.post<Prefs>(`${V1}prefs`, {}),
  updatePrefs: (change: Partial<Prefs>) => api.post<Prefs>(`${V1}prefs/update`, change),
  profile: (id: string) => api.post<OwnProfile>(`${V1}profile`, { account_id: id }),
  editProfile: (change: { name?: string; bio?: string }) => api.post<OwnProfile>(`${V1}profile/edit`, change),
  avatar: (image: string, crop: { x: number; y: number; size: number } | null) =>
    api.post<OwnProfile>(`${V1}avatar`, crop ? { image, crop } : { image }),
});
