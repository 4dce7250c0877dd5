import { useState } from 'react';
import { useT } from '../i18n/useT';
import { Dialog } from '../generator/Dialog';
import { localePath } from '../router/locale';
import { localeAtom, navigate } from '../router/router';
import { appStore, useAtomValue } from '../state/jotai';
import { leaveChannel } from './actions';
import { channelPath } from './route';
import { useErrorText } from './useErrorText';

/** "Leave channel" for members, "Disband channel" for the owner; both ask first. */
export function LeaveChannel({ channelId, owner }: { channelId: string; owner: boolean }) {
  const t = useT();
  const errorText = useErrorText();
  const locale = useAtomValue(localeAtom);
  const [asking, setAsking] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const label = owner ? t('channels.disband') : t('channels.quit');

  async function confirm() {
    setPending(true);
    setError(null);
    try {
      await leaveChannel(channelId, owner);
      navigate(appStore, localePath(locale, channelPath(null)));
    } catch (err) {
      setError(errorText(err));
      setPending(false);
    }
  }

  return (
    <>
      <button type="button" className="button button--danger channel-view__leave" onClick={() => setAsking(true)}>
        {label}
      </button>
      {asking && (
        <Dialog title={label} closeLabel={t('channels.close')} onClose={() => setAsking(false)} className="leave-dialog">
          <p>{owner ? t('channels.disbandText') : t('channels.quitText')}</p>
          {error !== null && (
            <p className="channels__error" role="alert">
              {error}
            </p>
          )}
          <div className="leave-dialog__buttons">
            <button type="button" className="button" onClick={() => setAsking(false)}>
              {t('channels.cancel')}
            </button>
            <button type="button" className="button button--danger" disabled={pending} onClick={() => void confirm()}>
              {label}
            </button>
          </div>
        </Dialog>
      )}
    </>
  );
}
