import { useEffect, useState } from 'react';
import { showToast } from '../app/toast';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { appStore, useAtomValue } from '../state/jotai';
import { channelApi, loadChannels } from './actions';
import { channelsAtom } from './atoms';
import { useErrorText } from './useErrorText';

/** "Share to channel": pick one of the joined channels and post the task's result there. */
export function ShareToChannel({ taskId, onClose }: { taskId: string; onClose: () => void }) {
  const t = useT();
  const errorText = useErrorText();
  const channels = useAtomValue(channelsAtom);
  const [pending, setPending] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    loadChannels().catch((err: unknown) => setError(errorText(err)));
  }, [errorText]);

  async function share(channelId: string, name: string) {
    setPending(channelId);
    setError(null);
    try {
      await channelApi.shareTask(channelId, taskId);
      showToast(appStore, t('channels.share.done', { name }));
      onClose();
    } catch (err) {
      setError(errorText(err));
      setPending(null);
    }
  }

  return (
    <Dialog title={t('channels.share.title')} closeLabel={t('channels.close')} onClose={onClose} className="share-dialog">
      {error !== null && (
        <p className="channels__error" role="alert">
          {error}
        </p>
      )}
      {channels === null ? (
        <p className="channels__note">{t('channels.loading')}</p>
      ) : channels.length === 0 ? (
        <p className="channels__note">{t('channels.share.none')}</p>
      ) : (
        <ul className="share-dialog__list">
          {channels.map((c) => (
            <li key={c.channel_id}>
              <button
                type="button"
                className="button share-dialog__channel"
                disabled={pending !== null}
                aria-busy={pending === c.channel_id}
                onClick={() => void share(c.channel_id, c.name)}
              >
                # {c.name}
              </button>
            </li>
          ))}
        </ul>
      )}
    </Dialog>
  );
}
