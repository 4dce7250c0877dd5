import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { socketStateAtom } from './atoms';

/** A coloured dot and the socket's state word. */
export function SocketBadge() {
  const state = useAtomValue(socketStateAtom);
  const t = useT();
  return (
    <span className={`badge badge--${state}`} title={`${t('socket.label')}: ${t(`socket.${state}`)}`}>
      <span className="badge__dot" aria-hidden="true" />
      <span className="visually-hidden">{t('socket.label')}: </span>
      <span className="badge__label" data-testid="socket-state">
        {state}
      </span>
    </span>
  );
}
