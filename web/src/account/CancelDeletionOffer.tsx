// In the login popup: sign-in of an account waiting for its deletion answers
// 20010 actNotAvailable with the purge time; this offers to cancel the
// deletion (`account/delete/cancel`, same e-mail and password), which
// answers like a login.
import { useState } from 'react';
import { api } from '../app/services';
import type { LoginData } from '../api/types';
import { isApiError } from '../api/client';
import { useT } from '../i18n/useT';

const SCHEDULED = /deletion scheduled at (\d+)/;

/** The purge time (ms) of a 20010 answer about a pending deletion, else null. */
export function pendingDeletionAt(error: unknown): number | null {
  if (!isApiError(error) || error.code !== 20010) return null;
  const m = SCHEDULED.exec(error.msg);
  return m?.[1] !== undefined ? Number(m[1]) : null;
}

export function CancelDeletionOffer({ error, email, password, onLogin }: { error: unknown; email: string; password: string; onLogin: (data: LoginData) => void }) {
  const t = useT();
  const [pending, setPending] = useState(false);
  const at = pendingDeletionAt(error);
  if (at === null) return null;

  async function cancel() {
    setPending(true);
    try {
      onLogin(await api.post<LoginData>('/api/v1/account/delete/cancel', { email: email.trim(), password }));
    } finally {
      setPending(false);
    }
  }

  return (
    <div className="form__notice" data-testid="cancel-deletion-offer">
      <p>{t('deletion.loginScheduled', { date: new Date(at).toLocaleString() })}</p>
      <button type="button" className="button" disabled={pending} onClick={() => void cancel()}>
        {t('deletion.cancelAndSignIn')}
      </button>
    </div>
  );
}
