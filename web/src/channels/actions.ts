// The channel actions the page calls, on the app's API client and store.
import { api } from '../app/services';
import { appStore } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import { trackTaskAtom } from '../tasks/atoms';
import { ChannelApi, HISTORY_PAGE } from './api';
import { channelLogsAtom, channelMembersAtom, channelsAtom, unreadAtom } from './atoms';
import { channelGenerateBody, defaultSdCheckpoint } from './shared';
import type { CheckpointChoice } from './shared';
import { applyHistoryPage, EMPTY_LOG, markRead, oldestSeq, unreadFromChannels } from './model';
import type { ChannelLog } from './model';

export const channelApi = new ChannelApi(api);

function updateLog(store: AppStore, channelId: string, f: (log: ChannelLog) => ChannelLog): void {
  const logs = store.get(channelLogsAtom);
  store.set(channelLogsAtom, { ...logs, [channelId]: f(logs[channelId] ?? EMPTY_LOG) });
}

/** Reads the joined channels and their unread counters. */
export async function loadChannels(store: AppStore = appStore): Promise<void> {
  const channels = await channelApi.joined();
  store.set(channelsAtom, channels);
  store.set(unreadAtom, unreadFromChannels(channels));
}

/** Reads the newest page of a channel's history (also after a gap). */
export async function loadNewest(channelId: string, store: AppStore = appStore): Promise<void> {
  const page = await channelApi.history(channelId, null, HISTORY_PAGE);
  updateLog(store, channelId, (log) =>
    applyHistoryPage(log, page.items, { limit: HISTORY_PAGE, older: false, hasMore: page.hasMore }),
  );
}

/** Reads the page before the oldest loaded message. */
export async function loadOlder(channelId: string, store: AppStore = appStore): Promise<void> {
  const before = oldestSeq(store.get(channelLogsAtom)[channelId] ?? EMPTY_LOG);
  if (before === null) return loadNewest(channelId, store);
  const page = await channelApi.history(channelId, before, HISTORY_PAGE);
  updateLog(store, channelId, (log) =>
    applyHistoryPage(log, page.items, { limit: HISTORY_PAGE, older: true, hasMore: page.hasMore }),
  );
}

export async function loadMembers(channelId: string, store: AppStore = appStore): Promise<void> {
  const members = await channelApi.members(channelId);
  store.set(channelMembersAtom, { ...store.get(channelMembersAtom), [channelId]: members });
}

/** Clears the counter at once and tells the server (errors are not worth a toast). */
export function markChannelRead(channelId: string, seq: number | null, store: AppStore = appStore): void {
  store.set(unreadAtom, markRead(store.get(unreadAtom), channelId));
  if (seq !== null) channelApi.read(channelId, seq).catch(() => undefined);
}

let checkpoint: Promise<string> | null = null;

/** The catalogue's default sd checkpoint, fetched once (again after a failure). */
function channelCheckpoint(): Promise<string> {
  checkpoint ??= api
    .post<{ checkpoints?: CheckpointChoice[] }>('/api/v1/task/v2/config/model')
    .then((c) => {
      const id = defaultSdCheckpoint(c.checkpoints ?? []);
      if (id === null) throw new Error('no checkpoint');
      return id;
    })
    .catch((e: unknown) => {
      checkpoint = null;
      throw e;
    });
  return checkpoint;
}

/** Starts one text-to-image task in the channel and puts it in the caller's task panel. */
export async function generateInChannel(channelId: string, prompt: string, store: AppStore = appStore): Promise<string> {
  const body = channelGenerateBody(await channelCheckpoint(), channelId, prompt);
  const { id } = await api.post<{ id: string }>('/api/v1/task/v2/text-to-img', body);
  store.set(trackTaskAtom, id);
  return id;
}

/** Leaves (or, for the owner, disbands) a channel and forgets it locally. */
export async function leaveChannel(channelId: string, disband: boolean, store: AppStore = appStore): Promise<void> {
  if (disband) await channelApi.disband(channelId);
  else await channelApi.quit(channelId);
  const channels = store.get(channelsAtom);
  if (channels !== null) store.set(channelsAtom, channels.filter((c) => c.channel_id !== channelId));
  store.set(unreadAtom, markRead(store.get(unreadAtom), channelId));
}
