// Phone sign-in in the login popup (spec 2 §2 "phone"): the number, a code
// sent by text message, then the code; a new number makes an account (with
// the stored invite code) that goes through the final step. Shown only when
// the server has an SMS provider (`login-in/sms/config`).
import { useEffect, useId, useState } from 'react';
import type { FormEvent } from 'react';
import { api } from '../app/services';
import { isApiError } from '../api/client';
import type { LoginData } from '../api/types';
import { errorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { CancelDeletionOffer } from './CancelDeletionOffer';
import { FormError } from './FormError';
import { useApplyLogin } from './useLoginOutcome';
import { clearUserInvite, readUserInvite } from './userInvite';

const SMS = '/api/v1/account/login-in/sms';

interface SmsConfig {
  enabled: boolean;
  resend_secs: number;
}

export function PhoneLoginForm() {
  const t = useT();
  const id = useId();
  const applyLogin = useApplyLogin();
  const [config, setConfig] = useState<SmsConfig | null>(null);
  const [phone, setPhone] = useState('');
  const [code, setCode] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ErrorMessage | null>(null);
  // The raw failure of the last sign-in: a 20010 about a waiting deletion
  // offers to cancel it with the same number and code.
  const [failure, setFailure] = useState<unknown>(null);

  useEffect(() => {
    let live = true;
    api
      .post<SmsConfig>(`${SMS}/config`, {})
      .then((c) => live && setConfig(c))
      .catch(() => live && setConfig(null));
    return () => {
      live = false;
    };
  }, []);

  if (!config?.enabled) return null;

  async function run(step: () => Promise<void>) {
    if (pending) return;
    setPending(true);
    setError(null);
    setFailure(null);
    try {
      await step();
    } catch (err) {
      if (isApiError(err) && err.code === 40002) clearUserInvite();
      setFailure(err);
      setError(errorMessage(err));
    } finally {
      setPending(false);
    }
  }

  function send() {
    void run(async () => {
      await api.post(SMS, { type: 'phone', phone: phone.trim() });
      setSentTo(phone.trim());
    });
  }

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (sentTo === null) {
      send();
      return;
    }
    void run(async () => {
      const invite = readUserInvite();
      const data = await api.post<LoginData>(SMS, {
        type: 'phone',
        phone: sentTo,
        code: code.trim(),
        ...(invite ? { invite_user_code: invite } : {}),
      });
      setError(applyLogin(data));
    });
  }

  return (
    <details className="phone-login">
      <summary>{t('login.tabPhone')}</summary>
      <form className="form" onSubmit={submit} noValidate aria-busy={pending}>
        <div className="field">
          <label htmlFor={`${id}-phone`}>{t('login.phone')}</label>
          <input
            id={`${id}-phone`}
            name="phone"
            type="tel"
            autoComplete="tel"
            placeholder="+44 7911 123456"
            value={phone}
            onChange={(e) => setPhone(e.target.value)}
            required
          />
        </div>
        {sentTo !== null && (
          <>
            <p>{t('login.codeSent', { phone: sentTo })}</p>
            <div className="field">
              <label htmlFor={`${id}-code`}>{t('login.smsCode')}</label>
              <input
                id={`${id}-code`}
                name="code"
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={6}
                value={code}
                onChange={(e) => setCode(e.target.value)}
                required
              />
            </div>
          </>
        )}
        <FormError error={error} />
        {sentTo !== null && (
          <CancelDeletionOffer
            error={failure}
            body={{ phone: sentTo, code: code.trim() }}
            onLogin={(data) => {
              setFailure(null);
              setError(applyLogin(data));
            }}
          />
        )}
        <div className="form__actions">
          <button type="button" className="button" disabled={pending || phone.trim() === ''} onClick={send}>
            {t('login.sendCode')}
          </button>
          {sentTo !== null && (
            <button type="submit" className="button button--primary" disabled={pending}>
              {pending ? t('login.pending') : t('login.submitLogin')}
            </button>
          )}
        </div>
      </form>
    </details>
  );
}
