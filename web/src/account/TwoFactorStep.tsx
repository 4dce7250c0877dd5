// The login popup's second step when two-factor is on: a code from the
// authenticator app, or one of the recovery codes, finishes the sign-in
// started by the password (`login-in/2fa` with the challenge).
import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { errorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { security } from '../settings/useSecurityApi';
import { FormError } from './FormError';
import { useApplyLogin } from './useLoginOutcome';

export function TwoFactorStep({ challenge, onRestart }: { challenge: string; onRestart: () => void }) {
  const t = useT();
  const id = useId();
  const applyLogin = useApplyLogin();
  const [code, setCode] = useState('');
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ErrorMessage | null>(null);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (pending) return;
    setPending(true);
    setError(null);
    try {
      setError(applyLogin(await security.secondStep(challenge, code)));
    } catch (err) {
      const m = errorMessage(err);
      setError(m);
      if ('key' in m && m.key === 'twoFactorChallengeExpired') onRestart();
    } finally {
      setPending(false);
    }
  }

  return (
    <form className="form" onSubmit={(e) => void submit(e)} noValidate aria-busy={pending} data-testid="login-2fa">
      <p>{t('login.twoFactor.intro')}</p>
      <div className="field">
        <label htmlFor={`${id}-code`}>{t('settings.twoFactor.codeOrRecovery')}</label>
        <input id={`${id}-code`} name="code" autoComplete="one-time-code" value={code} onChange={(e) => setCode(e.target.value)} required autoFocus />
      </div>
      <FormError error={error} />
      <button type="submit" className="button button--primary button--wide" disabled={pending}>
        {pending ? t('login.pending') : t('login.twoFactor.submit')}
      </button>
    </form>
  );
}
