import { useId, useState } from 'react';
import type { FormEvent, KeyboardEvent } from 'react';
import { useT } from '../i18n/useT';
import { channelApi, loadNewest } from './actions';
import { useErrorText } from './useErrorText';

/** Longest message accepted (characters); protocol/src/im.rs MAX_MESSAGE_CHARS. */
export const MESSAGE_MAX = 4000;

/** The message box: Enter sends, Shift+Enter adds a line; the length is shown against the limit. */
export function Composer({ channelId }: { channelId: string }) {
  const t = useT();
  const errorText = useErrorText();
  const id = useId();
  const hintId = useId();
  const [text, setText] = useState('');
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const length = [...text].length;
  const tooLong = length > MESSAGE_MAX;

  async function send() {
    const content = text.trim();
    if (content === '' || tooLong || pending) return;
    setPending(true);
    setError(null);
    try {
      await channelApi.send(channelId, content);
      setText('');
      // The message comes back as a frame-12 push; read the newest page too in
      // case the socket is down, merged without duplicates.
      loadNewest(channelId).catch(() => undefined);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setPending(false);
    }
  }

  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    }
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    void send();
  }

  return (
    <form className="composer" onSubmit={onSubmit}>
      <label htmlFor={id} className="visually-hidden">
        {t('channels.composer')}
      </label>
      <textarea
        id={id}
        className="composer__input"
        value={text}
        rows={2}
        placeholder={t('channels.composer')}
        aria-describedby={hintId}
        aria-invalid={tooLong}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="composer__bar">
        <span id={hintId} className="composer__hint">
          {t('channels.composerHint')}{' '}
          <span className={tooLong ? 'composer__count composer__count--over' : 'composer__count'}>
            {t('channels.length', { length, max: MESSAGE_MAX })}
          </span>
          {tooLong && <span role="alert"> {t('channels.tooLong')}</span>}
        </span>
        <button type="submit" className="button button--primary" disabled={pending || tooLong || text.trim() === ''}>
          {t('channels.send')}
        </button>
      </div>
      {error !== null && (
        <p className="channels__error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
