import { useState } from 'react';
import { showToast } from '../app/toast';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { appStore } from '../state/jotai';
import { channelApi, loadChannels } from './actions';
import { clearInvite } from './invite';
import { useErrorText } from './useErrorText';

/** The confirmation a stored invite code triggers: Join joins the channel, Not now forgets the code. */
export function InviteConfirm({
  code,
  onDone,
}: {
  code: string;
  /** Called once the code is used or declined, with the joined channel's id when known. */
  onDone: (channelId: string | null) => void;
}) {
  const t = useT();
  const errorText = useErrorText();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  function decline() {
    clearInvite();
    onDone(null);
  }

  async function join() {
    setPending(true);
    setError(null);
    try {
      const id = await channelApi.join(code);
      clearInvite();
      await loadChannels().catch(() => undefined);
      showToast(appStore, t('channels.joined'));
      onDone(id);
    } catch (err) {
      setError(errorText(err));
      setPending(false);
    }
  }

  return (
    <Dialog title={t('channels.joinTitle')} closeLabel={t('channels.close')} onClose={decline}>
      <p>{t('channels.joinText', { code })}</p>
      {error !== null && (
        <p className="channels__error" role="alert">
          {error}
        </p>
      )}
      <div className="channels__actions">
        <button type="button" className="button" onClick={decline}>
          {t('channels.decline')}
        </button>
        <button type="button" className="button button--primary" disabled={pending} onClick={() => void join()}>
          {pending ? t('channels.pending') : t('channels.join')}
        </button>
      </div>
    </Dialog>
  );
}
