// Security tab: TOTP two-factor sign-in. Off: the password starts enrolment
// (QR code, the secret for typing by hand), a code from the app confirms it
// and the ten recovery codes are shown once. On: password and a code (or a
// recovery code) turn it off.
import { useCallback, useEffect, useId, useState } from 'react';
import type { FormEvent } from 'react';
import { FormError } from '../account/FormError';
import { errorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import { useT } from '../i18n/useT';
import type { Enrolment, TwoFactorStatus } from './api';
import { RegenerateRecovery } from './RegenerateRecovery';
import { security } from './useSecurityApi';

export function TwoFactorSection() {
  const t = useT();
  const id = useId();
  const [status, setStatus] = useState<TwoFactorStatus | null>(null);
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<ErrorMessage | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    try {
      setStatus(await security.twoFactorStatus());
    } catch (e) {
      setError(errorMessage(e));
    }
  }, []);
  useEffect(() => {
    security.twoFactorStatus().then(setStatus, (e: unknown) => setError(errorMessage(e)));
  }, []);

  async function run(e: FormEvent, f: () => Promise<void>) {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await f();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  if (status === null) return <p className="muted">{t('settings.loading')}</p>;

  if (codes !== null) {
    return (
      <div data-testid="twofa-recovery">
        <p>{t('settings.twoFactor.recoveryIntro')}</p>
        <ul className="settings-codes" data-testid="twofa-recovery-codes">
          {codes.map((c) => (
            <li key={c}>{c}</li>
          ))}
        </ul>
        <button type="button" className="button button--primary" onClick={() => setCodes(null)}>
          {t('settings.twoFactor.saved')}
        </button>
      </div>
    );
  }

  if (status.enabled) {
    return (
      <>
      <form
        className="form"
        data-testid="twofa-on"
        onSubmit={(e) =>
          void run(e, async () => {
            await security.disable(password, code);
            setPassword('');
            setCode('');
            await load();
          })
        }
      >
        <p>{t('settings.twoFactor.on', { n: status.recovery_left })}</p>
        <div className="field">
          <label htmlFor={`${id}-pw`}>{t('login.password')}</label>
          <input id={`${id}-pw`} type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-code`}>{t('settings.twoFactor.codeOrRecovery')}</label>
          <input id={`${id}-code`} autoComplete="one-time-code" value={code} onChange={(e) => setCode(e.target.value)} />
        </div>
        <FormError error={error} />
        <button type="submit" className="button" disabled={busy} data-testid="twofa-disable">
          {t('settings.twoFactor.turnOff')}
        </button>
      </form>
      <RegenerateRecovery
        onCodes={(c) => {
          setCodes(c);
          void load();
        }}
      />
      </>
    );
  }

  if (enrolment !== null) {
    return (
      <form
        className="form"
        data-testid="twofa-enrol"
        onSubmit={(e) =>
          void run(e, async () => {
            const r = await security.confirm(code);
            setEnrolment(null);
            setCode('');
            setCodes(r.recovery_codes);
            await load();
          })
        }
      >
        <p>{t('settings.twoFactor.scan')}</p>
        <img className="settings-qr" src={enrolment.qr} alt={t('settings.twoFactor.qrAlt')} data-testid="twofa-qr" />
        <p>
          {t('settings.twoFactor.secret')} <code data-testid="twofa-secret">{enrolment.secret}</code>
        </p>
        <div className="field">
          <label htmlFor={`${id}-confirm`}>{t('settings.twoFactor.code')}</label>
          <input id={`${id}-confirm`} inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={code} onChange={(e) => setCode(e.target.value)} />
        </div>
        <FormError error={error} />
        <button type="submit" className="button button--primary" disabled={busy} data-testid="twofa-confirm">
          {t('settings.twoFactor.confirm')}
        </button>
      </form>
    );
  }

  return (
    <form
      className="form"
      data-testid="twofa-off"
      onSubmit={(e) =>
        void run(e, async () => {
          setEnrolment(await security.enrol(password));
          setPassword('');
        })
      }
    >
      <p>{t('settings.twoFactor.off')}</p>
      <div className="field">
        <label htmlFor={`${id}-enrol-pw`}>{t('login.password')}</label>
        <input id={`${id}-enrol-pw`} type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
      </div>
      <FormError error={error} />
      <button type="submit" className="button button--primary" disabled={busy} data-testid="twofa-start">
        {t('settings.twoFactor.turnOn')}
      </button>
    </form>
  );
}
