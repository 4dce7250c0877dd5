// Starter templates (`/prompt/preset-template`) as chips: a click sends the template's text.
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { sendToAgent } from './actions';
import type { PresetTemplate } from './api';
import { agentSendingAtom } from './atoms';

export function PresetChips({ presets }: { presets: readonly PresetTemplate[] }) {
  const t = useT();
  const sending = useAtomValue(agentSendingAtom);
  return (
    <div className="agent__presets">
      <h2 className="agent__presets-title">{t('agent.presets')}</h2>
      <ul className="chips">
        {presets.map((p) => (
          <li key={p.id}>
            <button type="button" className="chip" disabled={sending} title={p.prompt} onClick={() => void sendToAgent(p.prompt, null)}>
              {p.title}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
