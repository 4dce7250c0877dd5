// Tools beside the generator's prompt field: the Polish button (spec 1 §4)
// with one undo, and the hand-off of a prompt chosen in the agent.
import { useEffect, useState } from 'react';
import { loginDialogAtom } from '../account/atoms';
import { showToast } from '../app/toast';
import { useWorkspace } from '../generator/useWorkspace';
import { messagesFor, translate } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { localeAtom } from '../router/router';
import { appStore, useAtom } from '../state/jotai';
import { pendingGeneratorPromptAtom } from './atoms';
import { streamHeaders } from './headers';
import { IDLE } from './polish';
import type { PolishState } from './polish';
import { fetchPolishStream, PolishController } from './polishController';
import './agent.css';

export function GeneratorPromptTools() {
  const t = useT();
  const { config, update } = useWorkspace();
  const [state, setState] = useState<PolishState>(IDLE);
  const [controller] = useState(
    () =>
      new PolishController({
        stream: fetchPolishStream(() => streamHeaders(appStore)),
        setPrompt: () => undefined,
        openLogin: () => appStore.set(loginDialogAtom, { open: true, step: 'login' }),
        toast: (key) => showToast(appStore, translate(messagesFor(appStore.get(localeAtom)), key)),
        onState: setState,
      }),
  );
  const [pending, setPending] = useAtom(pendingGeneratorPromptAtom);

  useEffect(() => controller.bindField((prompt) => update({ prompt })), [controller, update]);

  // Leaving the field (another tab, another page) stops a running polish.
  useEffect(() => () => controller.cancel(), [controller]);

  useEffect(() => controller.fieldChanged(config.prompt), [controller, config.prompt]);

  // A prompt handed over by the agent's "Use in generator".
  useEffect(() => {
    if (pending === null) return;
    controller.cancel();
    update({ prompt: pending });
    setPending(null);
  }, [pending, controller, update, setPending]);

  const polishing = state.phase === 'polishing';
  const empty = config.prompt.trim() === '';
  return (
    <div className="polish" data-testid="polish" data-state={state.phase}>
      <button
        type="button"
        className={`button polish__button${polishing ? '' : ' polish__button--idle'}`}
        disabled={!polishing && empty}
        title={t('agent.polishHint')}
        onClick={() => (polishing ? controller.cancel() : controller.submit(config.prompt))}
      >
        <span className="polish__icon" aria-hidden="true">
          ✦
        </span>
        {polishing ? t('agent.polishStop') : t('agent.polish')}
      </button>
      {polishing && (
        <span className="polish__status" role="status">
          <span className="typing" aria-hidden="true">
            <span />
            <span />
            <span />
          </span>
          {t('agent.polishing')}
        </span>
      )}
      {state.phase === 'idle' && state.undo !== null && (
        <button type="button" className="button button--link polish__undo" onClick={() => controller.undo()}>
          {t('agent.polishUndo')}
        </button>
      )}
    </div>
  );
}
