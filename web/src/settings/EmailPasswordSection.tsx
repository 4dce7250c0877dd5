import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { accountAtom } from '../account/atoms';
import { FormError } from '../account/FormError';
import { mailApi } from '../account/mailApi';
import { useFormAction } from '../account/useFormAction';
import { api } from '../app/services';
import { useT } from '../i18n/useT';
import { localeAtom } from '../router/router';
import { appStore, useAtomValue } from '../state/jotai';

/**
 * Settings › security: change the e-mail (the current password, then the
 * code mailed to the new address; the old address is told) and the password
 * (the old one required; the other sessions are signed out).
 */
export function EmailPasswordSection() {
  const t = useT();
  const account = useAtomValue(accountAtom);
  if (!account) return null;
  return (
    <div className="settings-section" data-testid="email-password-section">
      <p>
        {t('mail.currentEmail', { email: account.email })}{' '}
        <span className="badge">{account.email_verified ? t('mail.verifiedBadge') : t('mail.unverifiedBadge')}</span>
      </p>
      <ChangeEmailForm />
      <ChangePasswordForm />
    </div>
  );
}

function ChangeEmailForm() {
  const t = useT();
  const id = useId();
  const locale = useAtomValue(localeAtom);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [codeSent, setCodeSent] = useState(false);
  const { pending, error, run } = useFormAction();
  const [done, setDone] = useState<string | null>(null);

  function submit(e: FormEvent<HTMLFormElement>) {
    return run(e, async () => {
      if (!codeSent) {
        await mailApi.changeEmail(api, email.trim(), password, locale);
        setCodeSent(true);
      } else {
        const info = await mailApi.confirmEmail(api, code.trim(), locale);
        const current = appStore.get(accountAtom);
        if (current) appStore.set(accountAtom, { ...current, email: info.email, email_verified: true });
        setDone(info.email);
        setCodeSent(false);
        setPassword('');
        setCode('');
      }
    });
  }

  return (
    <form className="form" onSubmit={(e) => void submit(e)} noValidate aria-busy={pending} data-testid="change-email">
      <div className="field">
        <label htmlFor={`${id}-email`}>{t('mail.newEmail')}</label>
        <input
          id={`${id}-email`}
          type="email"
          autoComplete="email"
          value={email}
          disabled={codeSent}
          onChange={(e) => setEmail(e.target.value)}
          required
        />
      </div>
      {!codeSent ? (
        <div className="field">
          <label htmlFor={`${id}-password`}>{t('mail.currentPassword')}</label>
          <input
            id={`${id}-password`}
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            required
          />
        </div>
      ) : (
        <div className="field">
          <label htmlFor={`${id}-code`}>{t('mail.code')}</label>
          <input
            id={`${id}-code`}
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            value={code}
            onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))}
            required
          />
        </div>
      )}
      {done !== null && <p role="status">{t('mail.emailChanged', { email: done })}</p>}
      <FormError error={error} />
      <button type="submit" className="button button--primary" disabled={pending}>
        {codeSent ? t('mail.changeEmailConfirm') : t('mail.changeEmailSubmit')}
      </button>
    </form>
  );
}

function ChangePasswordForm() {
  const t = useT();
  const id = useId();
  const locale = useAtomValue(localeAtom);
  const [oldPassword, setOldPassword] = useState('');
  const [password, setPassword] = useState('');
  const { pending, error, run } = useFormAction();
  const [ended, setEnded] = useState<number | null>(null);

  function submit(e: FormEvent<HTMLFormElement>) {
    return run(e, async () => {
      setEnded(null);
      const out = await mailApi.changePassword(api, oldPassword, password, locale);
      setEnded(out.ended_sessions);
      setOldPassword('');
      setPassword('');
    });
  }

  return (
    <form className="form" onSubmit={(e) => void submit(e)} noValidate aria-busy={pending} data-testid="change-password">
      <div className="field">
        <label htmlFor={`${id}-old`}>{t('mail.currentPassword')}</label>
        <input
          id={`${id}-old`}
          type="password"
          autoComplete="current-password"
          value={oldPassword}
          onChange={(e) => setOldPassword(e.target.value)}
          required
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-new`}>{t('mail.newPassword')}</label>
        <input
          id={`${id}-new`}
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
          minLength={8}
          maxLength={128}
        />
      </div>
      {ended !== null && <p role="status">{t('mail.passwordChanged', { count: ended })}</p>}
      <FormError error={error} />
      <button type="submit" className="button button--primary" disabled={pending}>
        {t('mail.changePasswordSubmit')}
      </button>
    </form>
  );
}
