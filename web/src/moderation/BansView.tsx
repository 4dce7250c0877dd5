// Account bans: ban an account for a length with a reason, the active bans
// (newest first, paged) with when each ends, and lifting one (with a reason).
import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { showToast } from '../app/toast';
import { useT } from '../i18n/useT';
import { appStore } from '../state/jotai';
import { useErrorText } from '../tavern/useErrorText';
import { moderationApi } from './actions';
import type { Ban } from './api';
import { BanFields } from './BanFields';
import { when } from './labels';
import type { BanDuration } from './model';
import { charCount, checkReason, TEXT_MAX } from './model';
import { ReasonDialog } from './ReasonDialog';
import { usePagedList } from './usePagedList';

export function BansView() {
  const t = useT();
  const errorText = useErrorText();
  const ids = { account: useId(), reason: useId() };
  const list = usePagedList((cursor) => moderationApi.bans(cursor), (b: Ban) => b.account_id, []);
  const [account, setAccount] = useState('');
  const [duration, setDuration] = useState<BanDuration>(86400);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [lifting, setLifting] = useState<Ban | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    if (account.trim() === '') {
      setError(t('moderation.bans.accountNeeded'));
      return;
    }
    const problem = checkReason(reason);
    if (problem !== null) {
      setError(t(`moderation.action.${problem}`, { max: TEXT_MAX }));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const ban = await moderationApi.ban(account, reason, duration);
      showToast(appStore, t('moderation.bans.done', { name: ban.name || ban.account_id }));
      setAccount('');
      setReason('');
      list.reload();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="mod-bans" data-testid="mod-bans">
      <form className="mod-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${ids.account}-h`}>
        <h2 id={`${ids.account}-h`}>{t('moderation.bans.new')}</h2>
        <div className="field">
          <label htmlFor={ids.account}>{t('moderation.bans.account')}</label>
          <input id={ids.account} value={account} autoComplete="off" onChange={(e) => setAccount(e.target.value)} />
        </div>
        <BanFields duration={duration} onDuration={setDuration} />
        <div className="field">
          <label htmlFor={ids.reason}>{t('moderation.bans.reason')}</label>
          <textarea id={ids.reason} rows={2} value={reason} aria-required onChange={(e) => setReason(e.target.value)} />
          <span className="muted mod-count">
            {charCount(reason.trim())}/{TEXT_MAX}
          </span>
        </div>
        {error !== null && (
          <p className="sq-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="button button--danger" disabled={busy}>
          {t('moderation.bans.submit')}
        </button>
      </form>
      {list.error !== null && (
        <p className="sq-error" role="alert">
          {errorText(list.error)}
        </p>
      )}
      {!list.loading && list.error === null && list.items.length === 0 && <p className="sq-note">{t('moderation.bans.empty')}</p>}
      <ul className="mod-rows">
        {list.items.map((b) => (
          <li key={b.account_id} className="mod-row" data-testid="ban-entry" data-account={b.account_id}>
            <div>
              <strong>{b.name || b.account_id}</strong> <code className="muted">{b.account_id}</code>
              <p className="muted">
                {b.until === 0 ? t('moderation.bans.permanent') : t('moderation.bans.until', { time: when(b.until) })} · {t('moderation.bans.by', { name: b.by_name || b.by })} · {when(b.create_at)}
              </p>
              <p>{b.reason}</p>
            </div>
            <button type="button" className="button button--small" onClick={() => setLifting(b)}>
              {t('moderation.bans.unban')}
            </button>
          </li>
        ))}
      </ul>
      {list.hasMore && !list.loading && (
        <button type="button" className="button" onClick={list.more}>
          {t('moderation.more')}
        </button>
      )}
      {lifting !== null && (
        <ReasonDialog
          title={t('moderation.action.title', { action: t('moderation.bans.unban'), object: lifting.name || lifting.account_id })}
          confirmLabel={t('moderation.bans.unban')}
          onClose={() => setLifting(null)}
          onConfirm={async (why) => {
            await moderationApi.unban(lifting.account_id, why);
            setLifting(null);
            list.reload();
          }}
        />
      )}
    </section>
  );
}
