import type { MessageKey } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { lastSeqAtom, recentFramesAtom } from './atoms';

function frameName(type: number): MessageKey | null {
  switch (type) {
    case 10:
    case 11:
    case 12:
    case 13:
    case 14:
      return `frame.${type}`;
    default:
      return null;
  }
}

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** The last pushed frames (type and seq), newest first, so live events are visible. */
export function RecentFrames() {
  const frames = useAtomValue(recentFramesAtom);
  const lastSeq = useAtomValue(lastSeqAtom);
  const t = useT();
  return (
    <section className="panel" aria-labelledby="recent-frames-title" data-testid="recent-frames">
      <header className="panel__header">
        <h2 id="recent-frames-title">{t('home.eventsTitle')}</h2>
        {lastSeq !== null && <span className="muted">{t('home.lastSeq', { seq: lastSeq })}</span>}
      </header>
      {frames.length === 0 ? (
        <p className="muted">{t('home.eventsEmpty')}</p>
      ) : (
        <table className="frames">
          <thead>
            <tr>
              <th scope="col">{t('home.colType')}</th>
              <th scope="col">{t('home.colSeq')}</th>
              <th scope="col">{t('home.colWhat')}</th>
              <th scope="col">{t('home.colTime')}</th>
            </tr>
          </thead>
          <tbody>
            {frames.map((f) => {
              const name = frameName(f.type);
              return (
                <tr key={f.id} className={f.type === 14 ? 'frames__error' : undefined}>
                  <td>
                    <span className="frames__type">{f.type}</span> {name ? t(name) : ''}
                  </td>
                  <td>{f.seq ?? '–'}</td>
                  <td>{f.summary}</td>
                  <td className="muted">{timeFormat.format(f.at)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
