import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { AccountStatus } from '../api/types';
import { api } from '../app/services';
import { errorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { CancelDeletionOffer } from './CancelDeletionOffer';
import { isSecondStep } from '../settings/api';
import { TwoFactorStep } from './TwoFactorStep';
import { Link } from '../app/Link';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { appStore, useAtomValue } from '../state/jotai';
import { loginDialogAtom } from './atoms';
import { FormError } from './FormError';
import { mailApi, mailConfigAtom } from './mailApi';
import { useApplyLogin } from './useLoginOutcome';
import { clearUserInvite, readUserInvite } from './userInvite';
import { isApiError } from '../api/client';

export interface LoginFormProps {
  mode: 'login' | 'signup';
  onModeChange: (mode: 'login' | 'signup') => void;
}

/** The login-types step: e-mail log in, or sign up with a display name. */
export function LoginForm({ mode, onModeChange }: LoginFormProps) {
  const t = useT();
  const id = useId();
  const applyLogin = useApplyLogin();
  const locale = useAtomValue(localeAtom);
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  // The invite code from a link (kept in localStorage), editable before sign-up.
  const [invite, setInvite] = useState(() => readUserInvite() ?? '');
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ErrorMessage | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  // Two-factor on: the password opened a second step (its challenge).
  const [challenge, setChallenge] = useState<string | null>(null);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (pending) return;
    setPending(true);
    setError(null);
    setFailure(null);
    try {
      const data =
        mode === 'login'
          ? await api.login({ email: email.trim(), password })
          : await api.signUp({
              name: name.trim(),
              email: email.trim(),
              password,
              ...(invite.trim() !== '' ? { invite_user_code: invite.trim() } : {}),
            });
      if (isSecondStep(data)) {
        setChallenge(data.challenge);
        setPassword('');
        return;
      }
      const refused = applyLogin(data);
      setError(refused);
      if (mode === 'signup' && refused === null && data.account.status === AccountStatus.Normal) await offerVerifyStep(data.account.email);
    } catch (err) {
      // InviteCodeError also forgets the stored code (spec 2 §8).
      if (isApiError(err) && err.code === 40002) {
        clearUserInvite();
        setInvite('');
      }
      setError(errorMessage(err));
      setFailure(err);
    } finally {
      setPending(false);
    }
  }

  /** After sign-up, when the server mails: the code is on its way, so ask for it. */
  async function offerVerifyStep(address: string) {
    let config = appStore.get(mailConfigAtom);
    if (config === null) {
      try {
        config = await mailApi.config(api);
        appStore.set(mailConfigAtom, config);
      } catch {
        return;
      }
    }
    if (config.enabled) appStore.set(loginDialogAtom, { open: true, step: 'verify', email: address });
  }

  function switchTo(next: 'login' | 'signup') {
    setError(null);
    onModeChange(next);
  }

  if (challenge !== null) {
    return <TwoFactorStep challenge={challenge} onRestart={() => setChallenge(null)} />;
  }

  return (
    <>
      <div className="tabs" role="tablist" aria-label={t('login.titleLogin')}>
        {(['login', 'signup'] as const).map((m) => (
          <button
            key={m}
            type="button"
            role="tab"
            className="tabs__tab"
            aria-selected={mode === m}
            onClick={() => switchTo(m)}
          >
            {t(m === 'login' ? 'login.tabLogin' : 'login.tabSignup')}
          </button>
        ))}
      </div>
      <form className="form" onSubmit={(e) => void submit(e)} noValidate aria-busy={pending}>
        {mode === 'signup' && (
          <div className="field">
            <label htmlFor={`${id}-name`}>{t('login.name')}</label>
            <input
              id={`${id}-name`}
              name="name"
              autoComplete="nickname"
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              maxLength={50}
            />
          </div>
        )}
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
        <div className="field">
          <label htmlFor={`${id}-password`}>{t('login.password')}</label>
          <input
            id={`${id}-password`}
            name="password"
            type="password"
            autoComplete={mode === 'login' ? 'current-password' : 'new-password'}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            required
          />
        </div>
        {mode === 'signup' && (
          <div className="field">
            <label htmlFor={`${id}-invite`}>{t('login.inviteCode')}</label>
            <input
              id={`${id}-invite`}
              name="invite_user_code"
              autoComplete="off"
              value={invite}
              onChange={(e) => setInvite(e.target.value)}
              maxLength={32}
            />
          </div>
        )}
        <FormError error={error} />
        {mode === 'login' && (
          <CancelDeletionOffer
            error={failure}
            body={{ email: email.trim(), password }}
            onLogin={(data) => {
              setFailure(null);
              setError(applyLogin(data));
            }}
          />
        )}
        <button type="submit" className="button button--primary button--wide" disabled={pending}>
          {pending ? t('login.pending') : t(mode === 'login' ? 'login.submitLogin' : 'login.submitSignup')}
        </button>
        {mode === 'login' && (
          <Link to={localePath(locale, '/forgot')} className="form__link" onClick={() => appStore.set(loginDialogAtom, { open: false })}>
            {t('mail.forgotLink')}
          </Link>
        )}
      </form>
    </>
  );
}
