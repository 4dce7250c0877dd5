import { useEffect, useState } from 'react';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { loadMembers, loadNewest, markChannelRead } from './actions';
import { channelLogsAtom, channelsAtom, membersStaleAtom } from './atoms';
import { ChannelTasks } from './ChannelTasks';
import { Composer } from './Composer';
import { GenerateHere } from './GenerateHere';
import { InviteLink } from './InviteLink';
import { LeaveChannel } from './LeaveChannel';
import { MemberList } from './MemberList';
import { MessageList } from './MessageList';
import { EMPTY_LOG, newestSeq } from './model';
import { useErrorText } from './useErrorText';

/** One open channel: its history, composer, invite link and members. */
export function ChannelView({ channelId }: { channelId: string }) {
  const t = useT();
  const errorText = useErrorText();
  const log = useAtomValue(channelLogsAtom)[channelId] ?? EMPTY_LOG;
  const channels = useAtomValue(channelsAtom);
  const channel = channels?.find((c) => c.channel_id === channelId) ?? null;
  const membersStale = useAtomValue(membersStaleAtom);
  const [error, setError] = useState<string | null>(null);
  const [showMembers, setShowMembers] = useState(false);
  const newest = newestSeq(log);

  // The newest page when the channel opens, and again after a push skipped sequence numbers.
  const { loaded, gap } = log;
  useEffect(() => {
    if (loaded && !gap) return;
    loadNewest(channelId).catch((err: unknown) => setError(errorText(err)));
  }, [channelId, loaded, gap, errorText]);

  useEffect(() => {
    loadMembers(channelId).catch(() => undefined);
  }, [channelId, membersStale]);

  useEffect(() => {
    if (loaded) markChannelRead(channelId, newest);
  }, [channelId, loaded, newest]);

  const name = channel?.name ?? '';
  // The list no longer has the channel: it was left, disbanded, or the user was removed.
  if (channels !== null && channel === null) {
    return (
      <p className="channels__note" role="status">
        {t('channels.gone')}
      </p>
    );
  }
  return (
    <div className={`channel-view${showMembers ? ' channel-view--members' : ''}`}>
      <div className="channel-view__main">
        <header className="channel-view__header">
          <h2 className="channel-view__title"># {name}</h2>
          <button
            type="button"
            className="button channel-view__members-toggle"
            aria-expanded={showMembers}
            onClick={() => setShowMembers((v) => !v)}
          >
            {t('channels.membersShow')}
          </button>
          {channel !== null && <LeaveChannel channelId={channelId} owner={channel.role === 'owner'} />}
        </header>
        {error !== null && (
          <p className="channels__error" role="alert">
            {error}
          </p>
        )}
        <MessageList channelId={channelId} name={name} log={log} />
        <ChannelTasks channelId={channelId} log={log} />
        <GenerateHere channelId={channelId} />
        <Composer channelId={channelId} />
      </div>
      <aside className="channel-view__side">
        {channel?.invite_code && <InviteLink code={channel.invite_code} />}
        <MemberList channelId={channelId} />
      </aside>
    </div>
  );
}
