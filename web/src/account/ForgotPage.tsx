import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { api } from '../app/services';
import { useT } from '../i18n/useT';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { FormError } from './FormError';
import { mailApi } from './mailApi';
import { useFormAction } from './useFormAction';

/**
 * `/{locale}/forgot`: asks for a reset link. The server answers the same
 * whether or not the address has an account, and so does this page.
 */
export function ForgotPage() {
  const t = useT();
  const id = useId();
  const locale = useAtomValue(localeAtom);
  const [email, setEmail] = useState('');
  const { pending, error, run } = useFormAction();
  const [sentTo, setSentTo] = useState<string | null>(null);

  function submit(e: FormEvent<HTMLFormElement>) {
    return run(e, async () => {
      await mailApi.forgot(api, email.trim(), locale);
      setSentTo(email.trim());
    });
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
