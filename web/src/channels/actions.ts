// The channel actions the page calls, on the app's API client and store.
import { api } from '../app/services';
import { appStore } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import { ChannelApi, HISTORY_PAGE } from './api';
import { channelLogsAtom, channelMembersAtom, channelsAtom, unreadAtom } from './atoms';
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
