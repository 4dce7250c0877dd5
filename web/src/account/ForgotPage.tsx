import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { api } from '../app/services';
import { errorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { FormError } from './FormError';
import { mailApi } from './mailApi';

/**
 * `/{locale}/forgot`: asks for a reset link. The server answers the same
 * whether or not the address has an account, and so does this page.
 */
export function ForgotPage() {
  const t = useT();
  const id = useId();
  const locale = useAtomValue(localeAtom);
  const [email, setEmail] = useState('');
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ErrorMessage | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (pending) return;
    setPending(true);
    setError(null);
    try {
      await mailApi.forgot(api, email.trim(), locale);
      setSentTo(email.trim());
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setPending(false);
    }
  }

  return (
    <section className="page page--narrow" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`}>{t('mail.forgotTitle')}</h1>
      {sentTo !== null ? (
        <p role="status" data-testid="forgot-sent">
          {t('mail.forgotSent', { email: sentTo })}
        </p>
      ) : (
        <form className="form" onSubmit={(e) => void submit(e)} noValidate aria-busy={pending}>
          <p className="muted">{t('mail.forgotHint')}</p>
          <div className="field">
            <label htmlFor={`${id}-email`}>{t('login.email')}</label>
            <input
              id={`${id}-email`}
              name="email"
              type="email"
              autoComplete="email"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              required
            />
          </div>
          <FormError error={error} />
          <button type="submit" className="button button--primary" disabled={pending}>
            {pending ? t('login.pending') : t('mail.forgotSubmit')}
          </button>
        </form>
      )}
    </section>
  );
}
