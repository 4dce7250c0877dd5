// Security tab: the account's sessions (device, address, last seen; the
// current one marked) with sign-out of one or of all others.
import { useCallback, useEffect, useState } from 'react';
import { FormError } from '../account/FormError';
import { errorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import { useT } from '../i18n/useT';
import type { SessionView } from './api';
import { security } from './useSecurityApi';

function when(secs: number): string {
  return new Date(secs * 1000).toLocaleString();
}

export function SessionsSection() {
  const t = useT();
  const [list, setList] = useState<SessionView[] | null>(null);
  const [error, setError] = useState<ErrorMessage | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    try {
      setList(await security.sessions());
    } catch (e) {
      setError(errorMessage(e));
    }
  }, []);
  useEffect(() => {
    security.sessions().then(setList, (e: unknown) => setError(errorMessage(e)));
  }, []);

  async function act(f: () => Promise<unknown>) {
    setBusy(true);
    setError(null);
    try {
      await f();
      await load();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  if (list === null) return <p className="muted">{t('settings.loading')}</p>;
  const others = list.filter((s) => !s.current).length;
  return (
    <>
      <ul className="settings-list" data-testid="sessions-list">
        {list.map((s) => (
          <li key={s.id} data-testid="session-row" data-current={s.current}>
            <div>
              <strong>{s.device}</strong> {s.current && <span className="badge">{t('settings.sessions.current')}</span>}
              <div className="muted">
                {t('settings.sessions.line', { address: s.address || '?', seen: when(s.last_seen), created: when(s.created_at) })}
              </div>
            </div>
            {!s.current && (
              <button type="button" className="button" disabled={busy} onClick={() => void act(() => security.revoke(s.id))}>
                {t('settings.sessions.signOut')}
              </button>
            )}
          </li>
        ))}
      </ul>
      <FormError error={error} />
      <button type="button" className="button" disabled={busy || others === 0} data-testid="sessions-revoke-others" onClick={() => void act(() => security.revokeOthers())}>
        {t('settings.sessions.signOutOthers')}
      </button>
    </>
  );
}
