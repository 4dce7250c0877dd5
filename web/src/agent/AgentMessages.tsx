// The open conversation: user messages, and the agent's replies split into
// normal text and prompt cards (spec 2 §3, §4).
import { useEffect, useRef } from 'react';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { agentHistoryLoadingAtom, agentMessagesAtom, agentPresetsAtom, agentRetryAtom, agentSendingAtom, agentConfigAtom } from './atoms';
import type { ChatMessage } from './chat';
import { PresetChips } from './PresetChips';
import { PromptCard, TypingDots } from './PromptCard';
import { MAX_RETRIES } from './agentStream';

function Reply({ message }: { message: ChatMessage }) {
  const t = useT();
  return (
    <li className="agent-msg agent-msg--assistant" data-testid="agent-reply" aria-busy={message.isTemp}>
      <span className="visually-hidden">{t('agent.assistant')}: </span>
      {message.contentParts.map((part, i) =>
        part.type === 'prompt' ? (
          <PromptCard key={i} part={part} />
        ) : part.displayText === '' ? null : (
          <p key={i} className="agent-msg__text">
            {part.displayText}
          </p>
        ),
      )}
      {message.isTemp && message.contentParts.at(-1)?.type !== 'prompt' && <TypingDots />}
    </li>
  );
}

function UserMessage({ message }: { message: ChatMessage }) {
  const t = useT();
  return (
    <li className="agent-msg agent-msg--user" data-testid="agent-user-message">
      <span className="visually-hidden">{t('agent.you')}: </span>
      {message.imageUrl && <img className="agent-msg__image" src={message.imageUrl} alt={t('agent.attached')} />}
      {message.text !== '' && <p className="agent-msg__text">{message.text}</p>}
    </li>
  );
}

function Waiting() {
  const t = useT();
  const retry = useAtomValue(agentRetryAtom);
  const max = useAtomValue(agentConfigAtom)?.max_retries ?? MAX_RETRIES;
  return (
    <li className="agent-msg agent-msg--assistant agent-msg--waiting" role="status">
      <TypingDots />
      <span className="muted">{retry > 0 ? t('agent.retrying', { attempt: retry, max }) : t('agent.thinking')}</span>
    </li>
  );
}

export function AgentMessages() {
  const t = useT();
  const messages = useAtomValue(agentMessagesAtom);
  const sending = useAtomValue(agentSendingAtom);
  const loading = useAtomValue(agentHistoryLoadingAtom);
  const presets = useAtomValue(agentPresetsAtom);
  const end = useRef<HTMLDivElement>(null);
  const last = messages.at(-1);
  const waiting = sending && (last === undefined || last.type === 'user');

  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' });
  }, [messages, waiting]);

  if (loading) return <p className="agent__empty muted">{t('agent.historyLoading')}</p>;
  if (messages.length === 0 && !sending) {
    return (
      <div className="agent__empty">
        <p>{t('agent.intro')}</p>
        {presets && presets.length > 0 && <PresetChips presets={presets} />}
      </div>
    );
  }
  return (
    <div className="agent__messages">
      <ol className="agent__list" aria-label={t('agent.messages')}>
        {messages.map((m) => (m.type === 'user' ? <UserMessage key={m.id} message={m} /> : <Reply key={m.id} message={m} />))}
        {waiting && <Waiting />}
      </ol>
      <div ref={end} />
    </div>
  );
}
