import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { api } from '../app/services';
import { errorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { FormError } from './FormError';
import { useApplyLogin } from './useLoginOutcome';

export interface FinalStepFormProps {
  /** The temporary token a status-3 login gave; it authenticates complete-profile. */
  tempToken: string;
  initialName: string;
}

/** The final step: a status-3 account chooses its display name. */
export function FinalStepForm({ tempToken, initialName }: FinalStepFormProps) {
  const t = useT();
  const id = useId();
  const applyLogin = useApplyLogin();
  const [name, setName] = useState(initialName);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ErrorMessage | null>(null);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (pending) return;
    setPending(true);
    setError(null);
    try {
      const data = await api.completeProfile({ name: name.trim() }, { token: tempToken });
      setError(applyLogin(data));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setPending(false);
    }
  }

  return (
    <form className="form" onSubmit={(e) => void submit(e)} noValidate aria-busy={pending}>
      <p className="muted">{t('login.finalHint')}</p>
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
      <FormError error={error} />
      <button type="submit" className="button button--primary button--wide" disabled={pending}>
        {pending ? t('login.pending') : t('login.submitFinal')}
      </button>
    </form>
  );
}
