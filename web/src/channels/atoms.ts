// Atoms of the channels feature: the joined channels, each channel's loaded
// messages and members, the unread counters and the channel on screen.
import { atom } from '../state/jotai';
import { readInvite } from './invite';
import type { Channel, ChannelLog, ChannelMember, UnreadCounts } from './model';

/** The joined channels; null until the first list arrives. */
export const channelsAtom = atom<readonly Channel[] | null>(null);

/** Loaded messages by channel id. */
export const channelLogsAtom = atom<Readonly<Record<string, ChannelLog>>>({});

/** Members by channel id. */
export const channelMembersAtom = atom<Readonly<Record<string, readonly ChannelMember[]>>>({});

/** Unread counters by channel id. */
export const unreadAtom = atom<UnreadCounts>({});

/** The channel shown on the channels page, or null. */
export const openChannelAtom = atom<string | null>(null);

/** Bumped when a push names a channel the list does not have: the list is read again. */
export const channelListStaleAtom = atom(0);

/** The invite code waiting for the user's confirmation (kept in localStorage too). */
export const pendingInviteAtom = atom<string | null>(readInvite());

/** Bumped when a member list changed (frame 13 `channel.members`): the open channel re-reads its members. */
export const membersStaleAtom = atom(0);
