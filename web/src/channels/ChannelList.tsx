import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { channelsAtom, unreadAtom } from './atoms';
import { badgeText } from './model';
import { channelPath } from './route';

/** The joined channels, each with its unread badge. */
export function ChannelList({ selected }: { selected: string | null }) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const channels = useAtomValue(channelsAtom);
  const unread = useAtomValue(unreadAtom);
  if (channels === null) return <p className="channels__note">{t('channels.loading')}</p>;
  if (channels.length === 0) return <p className="channels__note">{t('channels.empty')}</p>;
  return (
    <nav aria-label={t('channels.listLabel')}>
      <ul className="channel-list" data-testid="channel-list">
        {channels.map((c) => {
          const count = unread[c.channel_id] ?? 0;
          return (
            <li key={c.channel_id}>
              <Link
                to={localePath(locale, channelPath(c.channel_id))}
                className="channel-list__item"
                aria-current={c.channel_id === selected ? 'page' : undefined}
              >
                <span className="channel-list__name"># {c.name}</span>
                {c.private && <span className="channel-list__tag">{t('channels.private')}</span>}
                {count > 0 && (
                  <span className="channel-list__badge" data-testid="unread-badge" aria-label={t('channels.unread', { count })}>
                    {badgeText(count)}
                  </span>
                )}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
