import { useId } from 'react';
import { showToast } from '../app/toast';
import { useT } from '../i18n/useT';
import { localeAtom } from '../router/router';
import { appStore, useAtomValue } from '../state/jotai';
import { inviteLink } from './invite';

/** The channel's invite link with a copy button. */
export function InviteLink({ code }: { code: string }) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const id = useId();
  const link = inviteLink(window.location.origin, locale, code);

  async function copy() {
    try {
      await navigator.clipboard.writeText(link);
      showToast(appStore, t('channels.copied'));
    } catch {
      showToast(appStore, t('channels.copyFailed', { link }));
    }
  }

  return (
    <div className="invite">
      <label htmlFor={id} className="invite__label">
        {t('channels.invite')}
      </label>
      <div className="invite__row">
        <input id={id} className="invite__input" readOnly value={link} onFocus={(e) => e.currentTarget.select()} data-testid="invite-link" />
        <button type="button" className="button" onClick={() => void copy()}>
          {t('channels.copy')}
        </button>
      </div>
    </div>
  );
}
