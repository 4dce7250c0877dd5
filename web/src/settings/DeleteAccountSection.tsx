// Settings › account: export my data (progress, download while it lasts),
// delete my account (password re-entered, or a code sent to the phone of
// an account without a password, or a fresh sign-in at a linked provider
// for an account with neither, finished by OidcCallbackPage; grace date
// shown) and cancel the
// deletion during the grace (ScheduledDeletion.tsx, by how the account
// signs in: every session ended at the request). Server:
// backend/src/routes/account_deletion.rs.
// The request signs this browser out too, so the scheduled deletion and its
// cancel form live in an atom that the settings page shows signed out.
import { useEffect, useState } from 'react';
import { useAtom, useSetAtom } from '../state/jotai';
import { accountAtom, tokenAtom } from '../account/atoms';
import { api } from '../app/services';
import { useT } from '../i18n/useT';
import { useErrorText } from '../tavern/useErrorText';
import { startOidc } from '../account/oidc';
import { useProviderLabel } from '../account/ProviderButtons';
import { byPhoneCode, byProvider, scheduledDeletionAtom } from './deletionState';
import type { DeletionMethods, DeletionView } from './deletionState';
import { ScheduledDeletion } from './ScheduledDeletion';

export interface ExportView {
  id: string;
  state: 'running' | 'ready' | 'failed';
  progress: number;
  created_at: number;
  finished_at: number | null;
  expires_at: number | null;
  size: number;
}


export function DeleteAccountSection() {
  const t = useT();
  const errorText = useErrorText();
  const [token, setToken] = useAtom(tokenAtom);
  const setAccount = useSetAtom(accountAtom);
  const [exp, setExp] = useState<ExportView | null>(null);
  const [password, setPassword] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [scheduled, setScheduled] = useAtom(scheduledDeletionAtom);
  const [error, setError] = useState<string | null>(null);
  const [methods, setMethods] = useState<DeletionMethods | null>(null);
  const [code, setCode] = useState('');
  const [codeSent, setCodeSent] = useState(false);

  useEffect(() => {
    if (token === null) return;
    let live = true;
    api.post<DeletionMethods>('/api/v1/account/delete/methods', {}).then(
      (m) => live && setMethods(m),
      () => live && setMethods(null),
    );
    return () => {
      live = false;
    };
  }, [token]);

  useEffect(() => {
    if (token === null) return;
    let live = true;
    const read = async () => {
      try {
        const v = await api.post<ExportView | null>('/api/v1/account/export/status', {});
        if (live) setExp(v);
      } catch {
        /* shown on the next action */
      }
    };
    void read();
    const timer = window.setInterval(() => void read(), 2000);
    return () => {
      live = false;
      window.clearInterval(timer);
    };
  }, [token]);

  async function requestExport() {
    setError(null);
    try {
      setExp(await api.post<ExportView>('/api/v1/account/export/request', {}));
    } catch (e) {
      setError(errorText(e));
    }
  }

  async function download() {
    setError(null);
    const response = await fetch('/api/v1/account/export/download', { headers: token ? { token } : {} });
    if (!response.ok) {
      setError(t('exportUnavailable'));
      return;
    }
    const url = URL.createObjectURL(await response.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = 'easel-export.zip';
    a.click();
    URL.revokeObjectURL(url);
  }

  const phoneCode = byPhoneCode(methods);
  const provider = byProvider(methods);
  const providerLabel = useProviderLabel();

  async function confirmWithProvider(name: string) {
    setError(null);
    try {
      window.location.assign(await startOidc(api, window.sessionStorage, name, 'delete', window.location.pathname));
    } catch (e) {
      setError(errorText(e));
    }
  }

  async function sendCode() {
    if (!byPhoneCode(methods)) return;
    setError(null);
    try {
      await api.post('/api/v1/account/login-in/sms', { type: 'phone', phone: methods.phone });
      setCodeSent(true);
    } catch (e) {
      setError(errorText(e));
    }
  }

  async function requestDeletion() {
    setError(null);
    try {
      const v = await api.post<DeletionView>('/api/v1/account/delete/request', phoneCode ? { phone_code: code.trim() } : { password });
      setPassword('');
      setCode('');
      setConfirming(false);
      setScheduled({ ...v, methods });
      // Every session ended with the request: this one too.
      setToken(null);
      setAccount(null);
    } catch (e) {
      setError(errorText(e));
    }
  }

  if (scheduled !== null) return <ScheduledDeletion />;

  return (
    <section className="settings-section" data-testid="delete-account">
      <h3>{t('export.title')}</h3>
      <p>{t('export.hint')}</p>
      {exp?.state === 'running' && (
        <p>
          <progress max={100} value={exp.progress} /> {t('export.running', { progress: exp.progress })}
        </p>
      )}
      {exp?.state === 'ready' && exp.expires_at !== null && (
        <p>
          <button type="button" onClick={() => void download()} data-testid="export-download">
            {t('export.download')}
          </button>{' '}
          {t('export.expires', { date: new Date(exp.expires_at).toLocaleString() })}
        </p>
      )}
      {exp?.state === 'failed' && <p role="alert">{t('export.failed')}</p>}
      <button type="button" disabled={exp?.state === 'running'} onClick={() => void requestExport()} data-testid="export-request">
        {t('export.request')}
      </button>

      <h3>{t('deletion.title')}</h3>
      <p>{t('deletion.hint')}</p>
      {!confirming ? (
        <button type="button" className="danger" onClick={() => setConfirming(true)} data-testid="delete-account-start">
          {t('deletion.start')}
        </button>
      ) : (
        <div>
          {provider ? (
            <>
              <p>{t('deletion.confirmProviderHint')}</p>
              {methods?.providers.map((p) => (
                <button key={p} type="button" className="danger" onClick={() => void confirmWithProvider(p)} data-testid={`delete-account-provider-${p}`}>
                  {t('deletion.confirmWith', { provider: providerLabel(p) })}
                </button>
              ))}
            </>
          ) : phoneCode ? (
            <>
              <p>{t('deletion.confirmPhoneHint', { phone: methods?.phone ?? '' })}</p>
              <button type="button" onClick={() => void sendCode()} data-testid="delete-account-send-code">
                {t('deletion.sendCode')}
              </button>
              {codeSent && (
                <input inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={code} placeholder={t('deletion.code')} onChange={(e) => setCode(e.target.value)} data-testid="delete-account-code" />
              )}
            </>
          ) : (
            <input type="password" value={password} placeholder={t('deletion.password')} onChange={(e) => setPassword(e.target.value)} data-testid="delete-account-password" />
          )}
          {!provider && (
            <button type="button" className="danger" disabled={phoneCode ? code.trim() === '' : password === ''} onClick={() => void requestDeletion()} data-testid="delete-account-confirm">
              {t('deletion.confirm')}
            </button>
          )}
          <button type="button" onClick={() => setConfirming(false)}>
            {t('deletion.back')}
          </button>
        </div>
      )}
      {error !== null && <p role="alert">{error}</p>}
    </section>
  );
}
