// The account's own invite code (issue 21): the code, a link that carries it
// (`/{locale}/?invite=CODE`, kept by userInvite.ts on arrival), how many
// accounts it brought, the credits the operator set, and who invited us.
import { useEffect, useState } from 'react';
import { api } from '../app/services';
import { errorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { FormError } from '../account/FormError';

export interface InviteInfo {
  code: string;
  invited_count: number;
  invited_by: { id: string; name: string } | null;
  credits_inviter: number;
  credits_invitee: number;
}

/** The link a friend opens: the app's home page with the code. */
export function inviteUrl(origin: string, locale: string, code: string): string {
  return `${origin}/${locale}/?invite=${encodeURIComponent(code)}`;
}

export function InviteSection() {
  const t = useT();
  const [info, setInfo] = useState<InviteInfo | null>(null);
  const [error, setError] = useState<ErrorMessage | null>(null);
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    let live = true;
    api
      .post<InviteInfo>('/api/v1/account/invite/info', {})
      .then((d) => live && setInfo(d))
      .catch((e: unknown) => live && setError(errorMessage(e)));
    return () => {
      live = false;
    };
  }, []);

  if (error) return <FormError error={error} />;
  if (!info) return <p aria-busy="true">…</p>;
  const locale = window.location.pathname.split('/')[1] || 'en';
  const link = inviteUrl(window.location.origin, locale, info.code);

  async function copy() {
    try {
      await navigator.clipboard.writeText(link);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  }

  return (
    <div className="form" data-testid="invite-section">
      <div className="field">
        <span>{t('invite.yourCode')}</span>
        <strong data-testid="invite-code">{info.code}</strong>
      </div>
      <div className="field">
        <label htmlFor="invite-link">{t('invite.link')}</label>
        <input id="invite-link" readOnly value={link} onFocus={(e) => e.currentTarget.select()} />
      </div>
      <button type="button" className="button" onClick={() => void copy()}>
        {copied ? t('invite.copied') : t('invite.copy')}
      </button>
      <p>{t('invite.count', { n: info.invited_count })}</p>
      {(info.credits_inviter > 0 || info.credits_invitee > 0) && (
        <p>{t('invite.credits', { inviter: info.credits_inviter, invitee: info.credits_invitee })}</p>
      )}
      {info.invited_by && <p>{t('invite.invitedBy', { name: info.invited_by.name })}</p>}
    </div>
  );
}
