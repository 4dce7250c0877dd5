import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { api } from '../app/services';
import { showToast } from '../app/toast';
import { errorMessage } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { localeAtom } from '../router/router';
import { appStore, useAtomValue, useSetAtom } from '../state/jotai';
import { accountAtom, loginDialogAtom } from './atoms';
import { FormError } from './FormError';
import { mailApi } from './mailApi';
import { useFormAction } from './useFormAction';

/**
 * The login popup's verify step (issue 21): the 6-digit code mailed after
 * sign-up (or asked for from the banner); a new code on request; "Later"
 * closes the popup and the banner stays until the address is verified.
 */
export function VerifyStep({ email }: { email: string }) {
  const t = useT();
  const id = useId();
  const locale = useAtomValue(localeAtom);
  const setDialog = useSetAtom(loginDialogAtom);
  const [code, setCode] = useState('');
  const { pending, error, setError, run } = useFormAction();
  const [note, setNote] = useState<string | null>(null);

  function submit(e: FormEvent<HTMLFormElement>) {
    return run(e, async () => {
      const info = await mailApi.checkCode(api, code.trim());
      const current = appStore.get(accountAtom);
      if (current) appStore.set(accountAtom, { ...current, email_verified: info.email_verified ?? true });
      setDialog({ open: false });
      showToast(appStore, t('mail.verified'));
    });
  }

  async function resend() {
    setError(null);
    setNote(null);
    try {
      await mailApi.sendCode(api, locale);
      setNote(t('mail.resent'));
    } catch (err) {
      setError(errorMessage(err));
    }
  }

  return (
    <form className="form" onSubmit={(e) => void submit(e)} noValidate aria-busy={pending} data-testid="verify-step">
      <p className="muted">{t('mail.verifyHint', { email })}</p>
      <div className="field">
        <label htmlFor={`${id}-code`}>{t('mail.code')}</label>
        <input
          id={`${id}-code`}
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          maxLength={6}
          value={code}
          onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))}
          required
        />
      </div>
      {note && (
        <p className="muted" role="status">
          {note}
        </p>
      )}
      <FormError error={error} />
      <button type="submit" className="button button--primary button--wide" disabled={pending || code.length !== 6}>
        {pending ? t('login.pending') : t('mail.verifySubmit')}
      </button>
      <div className="form__row">
        <button type="button" className="button button--link" onClick={() => void resend()}>
          {t('mail.resend')}
        </button>
        <button type="button" className="button button--link" onClick={() => setDialog({ open: false })}>
          {t('mail.later')}
        </button>
      </div>
    </form>
  );
}
