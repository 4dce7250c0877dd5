// Moderator grants (operators): make an account a moderator, the list of
// moderators with who granted them, and revoking one.
import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { useT } from '../i18n/useT';
import { useErrorText } from '../tavern/useErrorText';
import { useLoaded } from '../tavern/useLoaded';
import { moderationApi } from './actions';
import type { Moderator } from './api';
import { when } from './labels';

export function ModeratorsView() {
  const t = useT();
  const errorText = useErrorText();
  const id = useId();
  const list = useLoaded(() => moderationApi.moderators(), [], [] as Moderator[]);
  const [account, setAccount] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function grant(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    if (account.trim() === '') {
      setError(t('moderation.bans.accountNeeded'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await moderationApi.grant(account);
      setAccount('');
      list.reload();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  async function revoke(m: Moderator) {
    setError(null);
    try {
      await moderationApi.revoke(m.account_id);
      list.reload();
    } catch (err) {
      setError(errorText(err));
    }
  }

  return (
    <section className="mod-mods" data-testid="mod-moderators">
      <h2>{t('moderation.mods.grant')}</h2>
      <form className="mod-form mod-form--inline" onSubmit={(e) => void grant(e)} noValidate>
        <div className="field">
          <label htmlFor={id}>{t('moderation.mods.account')}</label>
          <input id={id} value={account} autoComplete="off" onChange={(e) => setAccount(e.target.value)} />
        </div>
        <button type="submit" className="button button--primary" disabled={busy}>
          {t('moderation.mods.submit')}
        </button>
      </form>
      {error !== null && (
        <p className="sq-error" role="alert">
          {error}
        </p>
      )}
      {list.failed && (
        <p className="sq-error" role="alert">
          {errorText(list.error)}
        </p>
      )}
      {!list.loading && !list.failed && list.value.length === 0 && <p className="sq-note">{t('moderation.mods.empty')}</p>}
      <ul className="mod-rows">
        {list.value.map((m) => (
          <li key={m.account_id} className="mod-row" data-testid="moderator-entry" data-account={m.account_id}>
            <div>
              <strong>{m.name || m.account_id}</strong> <code className="muted">{m.account_id}</code>
              <p className="muted">{t('moderation.mods.since', { time: when(m.create_at) })}</p>
            </div>
            <button type="button" className="button button--small button--danger" onClick={() => void revoke(m)}>
              {t('moderation.mods.revoke')}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
