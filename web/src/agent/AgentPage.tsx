// The generation agent (`/agent`, spec 3 §7 "Gen-agent"): conversations on
// the left, the open conversation with its composer on the right.
import { useEffect } from 'react';
import { loggedInAtom, loginDialogAtom } from '../account/atoms';
import { useT } from '../i18n/useT';
import { appStore, useAtomValue, useSetAtom } from '../state/jotai';
import { loadAgent, openConv, stopAgent } from './actions';
import { AgentComposer } from './AgentComposer';
import { AgentMessages } from './AgentMessages';
import { agentConfigAtom, agentConvIdAtom } from './atoms';
import { ConvList } from './ConvList';
import './agent.css';

function ModelNote() {
  const t = useT();
  const config = useAtomValue(agentConfigAtom);
  if (!config?.model) return null;
  // The label says honestly what answers (the scripted test model says it is not a language model).
  return <p className="agent__model muted">{t('agent.model', { label: config.model.label })}</p>;
}

export function AgentPage() {
  const t = useT();
  const loggedIn = useAtomValue(loggedInAtom);
  const openLogin = useSetAtom(loginDialogAtom);

  useEffect(() => {
    if (!loggedIn) return;
    void loadAgent();
    // The conversation open when the page was left: its history may have grown.
    const open = appStore.get(agentConvIdAtom);
    if (open !== null) void openConv(open);
    return () => stopAgent();
  }, [loggedIn]);

  if (!loggedIn) {
    return (
      <section className="agent agent--out panel">
        <h1>{t('agent.title')}</h1>
        <p>{t('agent.loggedOut')}</p>
        <button type="button" className="button button--primary" onClick={() => openLogin({ open: true, step: 'login' })}>
          {t('agent.login')}
        </button>
      </section>
    );
  }
  return (
    <div className="agent">
      <ConvList />
      <section className="agent__chat" aria-labelledby="agent-title">
        <header className="agent__head">
          <h1 id="agent-title">{t('agent.title')}</h1>
          <ModelNote />
        </header>
        <AgentMessages />
        <AgentComposer />
      </section>
    </div>
  );
}
