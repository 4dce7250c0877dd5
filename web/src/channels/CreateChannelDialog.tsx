import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { channelApi, loadChannels } from './actions';
import { useErrorText } from './useErrorText';

/** Longest channel name (protocol/src/im.rs MAX_CHANNEL_NAME_CHARS). */
export const CHANNEL_NAME_MAX = 64;

/** The "create a channel" form (name, private) in a dialog; answers the new channel's id. */
export function CreateChannelDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (id: string) => void }) {
  const t = useT();
  const errorText = useErrorText();
  const nameId = useId();
  const [name, setName] = useState('');
  const [isPrivate, setPrivate] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const trimmed = name.trim();
    if (trimmed === '' || pending) return;
    setPending(true);
    setError(null);
    try {
      const created = await channelApi.create(trimmed, isPrivate);
      await loadChannels().catch(() => undefined);
      onCreated(created.channel_id);
    } catch (err) {
      setError(errorText(err));
      setPending(false);
    }
  }

  return (
    <Dialog title={t('channels.createTitle')} closeLabel={t('channels.close')} onClose={onClose}>
      <form className="form" onSubmit={submit}>
        <div className="field">
          <label htmlFor={nameId}>{t('channels.name')}</label>
          <input
            id={nameId}
            value={name}
            maxLength={CHANNEL_NAME_MAX}
            required
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        <label className="channels__check">
          <input type="checkbox" checked={isPrivate} onChange={(e) => setPrivate(e.target.checked)} />
          {t('channels.privateLabel')}
        </label>
        {error !== null && (
          <p className="channels__error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="button button--primary" disabled={pending || name.trim() === ''}>
          {pending ? t('channels.pending') : t('channels.createSubmit')}
        </button>
      </form>
    </Dialog>
  );
}
