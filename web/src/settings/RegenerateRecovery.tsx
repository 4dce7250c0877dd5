// Security tab, two-factor on: a new set of ten recovery codes (the old ones
// stop working). The password and a code from the authenticator app are
// re-entered; the new codes are shown once by the caller.
import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { FormError } from '../account/FormError';
import { useFormAction } from '../account/useFormAction';
import { useT } from '../i18n/useT';
import { security } from './useSecurityApi';

export function RegenerateRecovery({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const t = useT();
  const id = useId();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const { pending: busy, error, run } = useFormAction();

  function submit(e: FormEvent) {
    return run(e, async () => {
      const r = await security.regenerateRecovery(password, code);
      setPassword('');
      setCode('');
      onCodes(r.recovery_codes);
    });
  }

  return (
    <form className="form" data-testid="twofa-regenerate" onSubmit={(e) => void submit(e)}>
      <p>{t('settings.twoFactor.regenerateIntro')}</p>
      <div className="field">
        <label htmlFor={`${id}-pw`}>{t('login.password')}</label>
        <input id={`${id}-pw`} type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-code`}>{t('settings.twoFactor.code')}</label>
        <input id={`${id}-code`} inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={code} onChange={(e) => setCode(e.target.value)} />
      </div>
      <FormError error={error} />
      <button type="submit" className="button" disabled={busy} data-testid="twofa-regenerate-submit">
        {t('settings.twoFactor.regenerate')}
      </button>
    </form>
  );
}
