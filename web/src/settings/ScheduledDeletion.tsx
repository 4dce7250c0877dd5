// The scheduled deletion (shown signed out: the request ended every
// session): its date and the cancel form that matches how the account
// signs in (`account/delete/cancel`): e-mail and password; a code sent to
// the phone of an account without a password; or signing in again with a
// linked provider (the callback page finishes the cancel). An account with
// several ways gets each of them.
import { useState } from 'react';
import { useAtom, useSetAtom } from '../state/jotai';
import { accountAtom, tokenAtom } from '../account/atoms';
import { startOidc } from '../account/oidc';
import { useProviderLabel } from '../account/ProviderButtons';
import { api } from '../app/services';
import { useT } from '../i18n/useT';
import { useErrorText } from '../tavern/useErrorText';
import { scheduledDeletionAtom } from './deletionState';
import type { DeletionMethods } from './deletionState';

interface LoginAnswer {
  token: string;
  account: { id: string; name: string; email: string; create_at: number; status: number };
}

/** Which cancel forms to show: the password form unless the account is known to have none. */
export function cancelForms(m: DeletionMethods | null): { password: boolean; phone: string | null; providers: string[] } {
  if (m === null) return { password: true, phone: null, providers: [] };
  return {
    password: m.password,
    phone: m.phone !== null && m.sms_enabled ? m.phone : null,
    providers: m.providers,
  };
}

export function ScheduledDeletion() {
  const t = useT();
  const errorText = useErrorText();
  const setToken = useSetAtom(tokenAtom);
  const setAccount = useSetAtom(accountAtom);
  const [scheduled, setScheduled] = useAtom(scheduledDeletionAtom);
  const providerLabel = useProviderLabel();
  const [email, setEmail] = useState(scheduled?.methods?.email ?? '');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [codeSent, setCodeSent] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (scheduled === null) return null;
  const forms = cancelForms(scheduled.methods);
  const phone = forms.phone;

  async function cancelWith(body: Record<string, string>) {
    setError(null);
    try {
      const answer = await api.post<LoginAnswer>('/api/v1/account/delete/cancel', body);
      setScheduled(null);
      setPassword('');
      setCode('');
      setToken(answer.token);
      setAccount({ ...answer.account });
    } catch (e) {
      setError(errorText(e));
    }
  }

  async function sendCode() {
    if (phone === null) return;
    setError(null);
    try {
      await api.post('/api/v1/account/login-in/sms', { type: 'phone', phone });
      setCodeSent(true);
    } catch (e) {
      setError(errorText(e));
    }
  }

  async function viaProvider(provider: string) {
    setError(null);
    try {
      const back = `${window.location.pathname}${window.location.search}`;
      window.location.assign(await startOidc(api, window.sessionStorage, provider, 'cancel', back));
    } catch (e) {
      setError(errorText(e));
    }
  }

  return (
    <section className="settings-section" data-testid="delete-account-scheduled">
      <h3>{t('deletion.title')}</h3>
      <p>{t('deletion.scheduled', { date: new Date(scheduled.purge_at).toLocaleString() })}</p>
      {forms.password && (
        <div data-testid="delete-account-cancel-password">
          <p>{t('deletion.cancelHint')}</p>
          <input type="email" value={email} placeholder={t('deletion.email')} onChange={(e) => setEmail(e.target.value)} />
          <input type="password" value={password} placeholder={t('deletion.password')} onChange={(e) => setPassword(e.target.value)} />
          <button type="button" onClick={() => void cancelWith({ email, password })} data-testid="delete-account-cancel">
            {t('deletion.cancel')}
          </button>
        </div>
      )}
      {phone !== null && (
        <div data-testid="delete-account-cancel-phone">
          <p>{t('deletion.cancelHintPhone', { phone })}</p>
          <button type="button" onClick={() => void sendCode()} data-testid="delete-account-cancel-send-code">
            {t('deletion.sendCode')}
          </button>
          {codeSent && (
            <>
              <p>{t('deletion.codeSent', { phone })}</p>
              <input inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={code} placeholder={t('deletion.code')} onChange={(e) => setCode(e.target.value)} data-testid="delete-account-cancel-code" />
              <button type="button" disabled={code.trim() === ''} onClick={() => void cancelWith({ phone, code: code.trim() })} data-testid="delete-account-cancel-by-phone">
                {t('deletion.cancel')}
              </button>
            </>
          )}
        </div>
      )}
      {forms.providers.length > 0 && (
        <div data-testid="delete-account-cancel-provider">
          <p>{t('deletion.cancelHintProvider')}</p>
          {forms.providers.map((p) => (
            <button key={p} type="button" onClick={() => void viaProvider(p)}>
              {t('deletion.cancelWith', { provider: providerLabel(p) })}
            </button>
          ))}
        </div>
      )}
      {error !== null && <p role="alert">{error}</p>}
    </section>
  );
}
