// The agent's message box: text, an optional image (uploaded through the
// generator's upload flow, then sent as an `image` part), Send / Stop.
import { useId, useRef, useState } from 'react';
import type { ChangeEvent, FormEvent, KeyboardEvent } from 'react';
import { api } from '../app/services';
import { IMAGE_UPLOAD_CATEGORY, uploadFile } from '../generator/upload';
import { renderErrorMessage } from '../i18n/messages';
import { useMessages, useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { sendToAgent, stopAgent } from './actions';
import { agentProblemAtom, agentSendingAtom } from './atoms';

/** Longest message sent (characters). */
export const AGENT_MESSAGE_MAX = 4000;

type Attachment = { state: 'uploading'; percent: number; name: string } | { state: 'ready'; url: string; name: string } | { state: 'failed' };

function AttachmentView({ attachment, onRemove }: { attachment: Attachment; onRemove: () => void }) {
  const t = useT();
  if (attachment.state === 'failed') return <p className="form-error">{t('agent.uploadFailed')}</p>;
  return (
    <div className="agent-attachment">
      {attachment.state === 'ready' ? (
        <img className="agent-attachment__thumb" src={attachment.url} alt={t('agent.attached')} />
      ) : (
        <progress className="agent-attachment__progress" max={100} value={attachment.percent} aria-label={t('agent.uploading', { percent: attachment.percent })} />
      )}
      <span className="agent-attachment__name">
        {attachment.state === 'uploading' ? t('agent.uploading', { percent: attachment.percent }) : attachment.name}
      </span>
      <button type="button" className="icon-button" aria-label={t('agent.attachRemove')} onClick={onRemove}>
        ×
      </button>
    </div>
  );
}

export function AgentComposer() {
  const t = useT();
  const table = useMessages();
  const id = useId();
  const hintId = useId();
  const fileRef = useRef<HTMLInputElement>(null);
  const sending = useAtomValue(agentSendingAtom);
  const problem = useAtomValue(agentProblemAtom);
  const [text, setText] = useState('');
  const [attachment, setAttachment] = useState<Attachment | null>(null);
  const upload = useRef(0);
  const uploading = attachment?.state === 'uploading';
  const imageUrl = attachment?.state === 'ready' ? attachment.url : null;
  const tooLong = [...text].length > AGENT_MESSAGE_MAX;
  const canSend = !sending && !uploading && !tooLong && (text.trim() !== '' || imageUrl !== null);

  async function send() {
    if (!canSend) return;
    const sent = text;
    setText('');
    setAttachment(null);
    const ok = await sendToAgent(sent, imageUrl);
    // Give the text back when it did not go.
    if (!ok) setText((now) => (now === '' ? sent : now));
  }

  async function onFile(e: ChangeEvent<HTMLInputElement>) {
    const file = e.currentTarget.files?.[0];
    e.currentTarget.value = '';
    if (!file) return;
    const n = ++upload.current;
    setAttachment({ state: 'uploading', percent: 0, name: file.name });
    try {
      const url = await uploadFile({
        api,
        file,
        fileName: file.name,
        category: IMAGE_UPLOAD_CATEGORY,
        onProgress: (f) => n === upload.current && setAttachment({ state: 'uploading', percent: Math.min(99, Math.round(f * 100)), name: file.name }),
      });
      if (n === upload.current) setAttachment({ state: 'ready', url, name: file.name });
    } catch {
      if (n === upload.current) setAttachment({ state: 'failed' });
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
    <form className="agent-composer" onSubmit={onSubmit}>
      {problem && (
        <p className="form-error" role="alert">
          {renderErrorMessage(table, problem)}
        </p>
      )}
      {attachment && (
        <AttachmentView
          attachment={attachment}
          onRemove={() => {
            upload.current++;
            setAttachment(null);
          }}
        />
      )}
      <label htmlFor={id} className="visually-hidden">
        {t('agent.composer')}
      </label>
      <textarea
        id={id}
        className="agent-composer__input"
        rows={2}
        value={text}
        placeholder={t('agent.placeholder')}
        aria-describedby={hintId}
        aria-invalid={tooLong}
        onChange={(e) => setText(e.currentTarget.value)}
        onKeyDown={onKeyDown}
      />
      <div className="agent-composer__bar">
        <span id={hintId} className="muted agent-composer__hint">
          {t('agent.composerHint')}
        </span>
        <input ref={fileRef} type="file" accept="image/png,image/jpeg,image/webp" className="visually-hidden" tabIndex={-1} onChange={(e) => void onFile(e)} />
        <button type="button" className="button" onClick={() => fileRef.current?.click()} disabled={sending || uploading}>
          {t('agent.attach')}
        </button>
        {sending ? (
          <button type="button" className="button" onClick={stopAgent}>
            {t('agent.stop')}
          </button>
        ) : (
          <button type="submit" className="button button--primary" disabled={!canSend}>
            {t('agent.send')}
          </button>
        )}
      </div>
    </form>
  );
}
