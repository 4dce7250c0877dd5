// In the login popup: sign-in of an account waiting for its deletion answers
// 20010 actNotAvailable with the purge time; this offers to cancel the
// deletion (`account/delete/cancel`) with the same proof the sign-in used:
// e-mail and password, or the phone number and its code (the server keeps
// a right code live when it answers 20010). It answers like a login. A
// provider sign-in's offer is on the callback page (OidcCallbackPage).
import { useState } from 'react';
import { api } from '../app/services';
import type { LoginData } from '../api/types';
import { isApiError } from '../api/client';
import { errorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { FormError } from './FormError';

const SCHEDULED = /deletion scheduled at (\d+)/;

/** The purge time (ms) of a 20010 answer about a pending deletion, else null. */
export function pendingDeletionAt(error: unknown): number | null {
  if (!isApiError(error) || error.code !== 20010) return null;
  const m = SCHEDULED.exec(error.msg);
  return m?.[1] !== undefined ? Number(m[1]) : null;
}

/** What `account/delete/cancel` takes: the sign-in's own proof. */
export type CancelBody = { email: string; password: string } | { phone: string; code: string } | { session_id: string; token: string };

export function CancelDeletionOffer({ error, body, onLogin }: { error: unknown; body: CancelBody; onLogin: (data: LoginData) => void }) {
  const t = useT();
  const [pending, setPending] = useState(false);
  const [failed, setFailed] = useState<ErrorMessage | null>(null);
  const at = pendingDeletionAt(error);
  if (at === null) return null;

  async function cancel() {
    setPending(true);
    setFailed(null);
    try {
      onLogin(await api.post<LoginData>('/api/v1/account/delete/cancel', body));
    } catch (e) {
      setFailed(errorMessage(e));
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
      <FormError error={failed} />
    </div>
  );
}
