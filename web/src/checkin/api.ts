// The check-in and award calls (spec 3 §7) and the operator's, over the one
// API client handed in (so tests pass their own).
import type { ApiClient } from '../api/client';
import type { AwardConfig, AwardDef, AwardTrigger, AwardView, CheckinDone, CheckinInfo } from './model';
import { parseAward, parseInfo } from './model';

type Client = Pick<ApiClient, 'post'>;

function info(v: unknown): CheckinInfo {
  const i = parseInfo(v);
  if (i === null) throw new Error('bad check-in answer');
  return i;
}

export function checkinApi(client: Client) {
  return {
    async info(tz: string | null): Promise<CheckinInfo> {
      return info(await client.post<unknown>('/api/v1/activity/checkin/info', { tz }));
    },
    async checkIn(tz: string | null): Promise<CheckinDone> {
      const d = await client.post<Record<string, unknown>>('/api/v1/activity/checkin', { tz });
      return { granted: d.granted === true, reward: typeof d.reward === 'number' ? d.reward : 0, balance: typeof d.balance === 'number' ? d.balance : 0, info: info(d.info) };
    },
    /** Changes the account's check-in zone (once per 30 days once pinned); the info in the new zone. */
    async setZone(tz: string): Promise<CheckinInfo> {
      return info(await client.post<unknown>('/api/v1/activity/checkin/time-zone', { tz }));
    },
    /** The awards not shown yet; the server marks them seen. */
    async takeAwards(): Promise<AwardView[]> {
      const d = await client.post<{ list?: unknown[] }>('/api/v1/face-photo/mark-user-activity-award-list', {});
      return (d.list ?? []).map(parseAward).filter((a): a is AwardView => a !== null);
    },
    async markTempCoins(): Promise<boolean> {
      const d = await client.post<{ marked?: boolean }>('/api/v1/face-photo/mark-temp-coins-popup', {});
      return d.marked === true;
    },
    adminList(): Promise<AwardConfig> {
      return client.post<AwardConfig>('/api/v1/admin/award/list', {});
    },
    adminUpsert(def: AwardDef): Promise<AwardConfig> {
      return client.post<AwardConfig>('/api/v1/admin/award/upsert', def);
    },
    adminDelete(trigger: AwardTrigger): Promise<AwardConfig> {
      return client.post<AwardConfig>('/api/v1/admin/award/delete', { trigger });
    },
    adminSchedule(rewards: number[]): Promise<AwardConfig> {
      return client.post<AwardConfig>('/api/v1/admin/checkin/schedule/set', { rewards });
    },
  };
}
