// The caller's agent conversations and the "New conversation" button.
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { newConv, openConv } from './actions';
import { agentConvIdAtom, agentConvsAtom } from './atoms';
import { millis } from './chat';

export function ConvList() {
  const t = useT();
  const convs = useAtomValue(agentConvsAtom);
  const current = useAtomValue(agentConvIdAtom);
  return (
    <nav className="agent__sidebar" aria-label={t('agent.convs')}>
      <div className="agent__sidebar-head">
        <h2>{t('agent.convs')}</h2>
        <button type="button" className="button button--primary" onClick={() => newConv()}>
          {t('agent.newConv')}
        </button>
      </div>
      {convs === null ? (
        <p className="muted">{t('agent.convsLoading')}</p>
      ) : convs.length === 0 ? (
        <p className="muted">{t('agent.convsEmpty')}</p>
      ) : (
        <ul className="agent__convs">
          {convs.map((c) => (
            <li key={c.conv_id}>
              <button
                type="button"
                className="agent__conv"
                aria-current={c.conv_id === current ? 'true' : undefined}
                onClick={() => void openConv(c.conv_id)}
              >
                <span className="agent__conv-title">{c.title.trim() || t('agent.untitled')}</span>
                <time className="agent__conv-time" dateTime={new Date(millis(c.update_at)).toISOString()}>
                  {new Date(millis(c.update_at)).toLocaleDateString()}
                </time>
              </button>
            </li>
          ))}
        </ul>
      )}
    </nav>
  );
}
