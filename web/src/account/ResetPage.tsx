import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { api, session } from '../app/services';
import { useT } from '../i18n/useT';
import { localeAtom, locationAtom } from '../router/router';
import { appStore, useAtomValue } from '../state/jotai';
import { loginDialogAtom } from './atoms';
import { FormError } from './FormError';
import { mailApi } from './mailApi';
import { useFormAction } from './useFormAction';

/**
 * `/{locale}/reset?token=...` (the link a `forgot` mail carries, DESIGN.md
 * Contracts): sets a new password once. The server then ends every session,
 * this page's too, and the person logs in again.
 */
export function ResetPage() {
  const t = useT();
  const id = useId();
  const locale = useAtomValue(localeAtom);
  const search = useAtomValue(locationAtom).search;
  const token = new URLSearchParams(search).get('token')?.trim() ?? '';
  const [password, setPassword] = useState('');
  const { pending, error, run } = useFormAction();
  const [done, setDone] = useState(false);

  function submit(e: FormEvent<HTMLFormElement>) {
    return run(e, async () => {
      await mailApi.reset(api, token, password, locale);
      // Every session ended on the server; forget this page's one too.
      session.endLocally();
      setDone(true);
    });
  }

  return (
    <section className="page page--narrow" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`}>{t('mail.resetTitle')}</h1>
      {token === '' ? (
        <p role="alert">{t('mail.resetNoToken')}</p>
      ) : done ? (
        <>
          <p role="status" data-testid="reset-done">
            {t('mail.resetDone')}
          </p>
          <button
            type="button"
            className="button button--primary"
            onClick={() => appStore.set(loginDialogAtom, { open: true, step: 'login' })}
          >
            {t('mail.logIn')}
          </button>
        </>
      ) : (
        <form className="form" onSubmit={(e) => void submit(e)} noValidate aria-busy={pending}>
          <div className="field">
            <label htmlFor={`${id}-password`}>{t('mail.newPassword')}</label>
            <input
              id={`${id}-password`}
              name="password"
              type="password"
              autoComplete="new-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              required
              minLength={8}
              maxLength={128}
            />
          </div>
          <FormError error={error} />
          <button type="submit" className="button button--primary" disabled={pending}>
            {pending ? t('login.pending') : t('mail.resetSubmit')}
          </button>
        </form>
      )}
    </section>
  );
}
