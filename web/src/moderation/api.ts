// The moderation calls (issue 20; /work/wt/MOD_API.md, helper `moder`):
// the caller's role, reports, the moderators' queue and its actions, the
// audit log, account bans, moderator grants and NSFW appeals. Wire types
// mirror protocol/src/moderation by hand; field names exactly as on the wire.
import type { ApiClient } from '../api/client';

const V1 = '/api/v1/';

export type Role = 'operator' | 'moderator' | 'user';

/** Object types the moderation calls take (`obj_type`). */
export const OBJ = { work: 4, character: 9, comment: 30, message: 31, account: 100 } as const;

export type AuditAction =
  | 'hide'
  | 'unhide'
  | 'feed_ban'
  | 'feed_unban'
  | 'ban'
  | 'unban'
  | 'resolve'
  | 'dismiss'
  | 'appeal_keep'
  | 'appeal_change'
  | 'grant_moderator'
  | 'revoke_moderator';

export interface AuditEntry {
  id: string;
  actor: string;
  actor_name: string;
  actor_role: 'operator' | 'moderator';
  action: AuditAction;
  obj_type: number;
  obj_id: string;
  target_account: string;
  reason: string;
  create_at: number;
}

export interface ObjectSummary {
  title: string;
  text: string;
  cover: string | null;
  nsfw: boolean;
  nsfw_score: number | null;
  gone: boolean;
}

export type ModerationState = 'hidden' | 'feed_banned';

export interface ObjectModeration {
  state: ModerationState;
  reason: string;
  by?: string;
  at: number;
}

export interface ReportEntry {
  reporter: string;
  reason: string;
  text: string;
  create_at: number;
}

export interface ReportGroup {
  count: number;
  reasons: Record<string, number>;
  latest_at: number;
  items: ReportEntry[];
}

export type AppealStatus = 'open' | 'kept' | 'changed';

export interface Appeal {
  appeal_id: string;
  text: string;
  create_at: number;
  status: AppealStatus;
  reason: string;
}

export interface QueueItem {
  kind: 'report' | 'appeal';
  obj_type: number;
  obj_id: string;
  owner: string;
  owner_name: string;
  summary: ObjectSummary;
  moderation: ObjectModeration | null;
  reports?: ReportGroup | null;
  appeal?: Appeal | null;
  history: AuditEntry[];
}

export interface Ban {
  account_id: string;
  name: string;
  reason: string;
  by: string;
  by_name: string;
  create_at: number;
  /** When the ban ends (ms); 0 = permanent. */
  until: number;
}

export interface Moderator {
  account_id: string;
  name: string;
  granted_by: string;
  create_at: number;
}

export interface Paged<T> {
  items: T[];
  cursor: string | null;
}

export interface ReasonInfo {
  reason: string;
  needs_text: boolean;
}

export interface AppealLimit {
  limit: number;
  remaining: number;
  reset_at: number;
}

/** An object the moderation calls name. */
export interface ObjRef {
  obj_id: string;
  obj_type: number;
}

function paged<T>(d: unknown): Paged<T> {
  const o = typeof d === 'object' && d !== null ? (d as { items?: unknown; cursor?: unknown }) : {};
  return {
    items: Array.isArray(o.items) ? (o.items as T[]) : [],
    cursor: typeof o.cursor === 'string' && o.cursor !== '' ? o.cursor : null,
  };
}

/** Every moderation path, so tests can check the client calls exactly these. */
export const MODERATION_PATHS = {
  me: 'moderation/me',
  reasons: 'report/reasons',
  report: 'report',
  queue: 'moderation/queue',
  item: 'moderation/item',
  resolve: 'moderation/report/resolve',
  dismiss: 'moderation/report/dismiss',
  hide: 'review/hide',
  unhide: 'review/unhide',
  feedBan: 'review/ban',
  feedUnban: 'review/unban',
  audit: 'moderation/audit/list',
  ban: 'moderation/ban',
  unban: 'moderation/unban',
  bans: 'moderation/ban/list',
  grant: 'moderation/moderator/grant',
  revoke: 'moderation/moderator/revoke',
  moderators: 'moderation/moderator/list',
  appeal: 'resource/nsfw-appeal/create',
  appealLimit: 'resource/nsfw-appeal/rate-limit',
  decide: 'moderation/appeal/decide',
} as const;

/** The one-click actions on an object; each takes a reason. */
export type ObjectAction = 'hide' | 'unhide' | 'feedBan' | 'feedUnban' | 'resolve' | 'dismiss';

export class ModerationApi {
  constructor(private readonly api: Pick<ApiClient, 'post'>) {}

  private call<T>(path: string, body: unknown = {}): Promise<T> {
    return this.api.post<T>(`${V1}${path}`, body);
  }

  /** The caller's role; `user` for an answer without one. */
  async role(): Promise<Role> {
    const d = await this.call<{ role?: unknown }>(MODERATION_PATHS.me);
    const r = d?.role;
    return r === 'operator' || r === 'moderator' ? r : 'user';
  }

  async reasons(): Promise<ReasonInfo[]> {
    return paged<ReasonInfo>(await this.call<unknown>(MODERATION_PATHS.reasons)).items;
  }

  report(obj: ObjRef, reason: string, text: string): Promise<{ report_id: string }> {
    return this.call(MODERATION_PATHS.report, { ...obj, reason, text: text.trim() });
  }

  async queue(kind: 'report' | 'appeal' | null, cursor: string | null, limit = 20): Promise<Paged<QueueItem>> {
    const body: Record<string, unknown> = { limit };
    if (kind !== null) body.kind = kind;
    if (cursor !== null) body.cursor = cursor;
    return paged<QueueItem>(await this.call<unknown>(MODERATION_PATHS.queue, body));
  }

  item(obj: ObjRef): Promise<QueueItem> {
    return this.call(MODERATION_PATHS.item, obj);
  }

  /** One of the object actions with its reason. */
  act(action: ObjectAction, obj: ObjRef, reason: string): Promise<unknown> {
    return this.call(MODERATION_PATHS[action], { ...obj, reason: reason.trim() });
  }

  async audit(cursor: string | null, limit = 20): Promise<Paged<AuditEntry>> {
    return paged<AuditEntry>(await this.call<unknown>(MODERATION_PATHS.audit, cursor === null ? { limit } : { limit, cursor }));
  }

  ban(accountId: string, reason: string, durationSecs: number): Promise<Ban> {
    return this.call(MODERATION_PATHS.ban, { account_id: accountId.trim(), reason: reason.trim(), duration_secs: durationSecs });
  }

  unban(accountId: string, reason: string): Promise<unknown> {
    return this.call(MODERATION_PATHS.unban, { account_id: accountId, reason: reason.trim() });
  }

  async bans(cursor: string | null, limit = 50): Promise<Paged<Ban>> {
    return paged<Ban>(await this.call<unknown>(MODERATION_PATHS.bans, cursor === null ? { limit } : { limit, cursor }));
  }

  grant(accountId: string): Promise<Moderator> {
    return this.call(MODERATION_PATHS.grant, { account_id: accountId.trim() });
  }

  revoke(accountId: string): Promise<unknown> {
    return this.call(MODERATION_PATHS.revoke, { account_id: accountId });
  }

  async moderators(): Promise<Moderator[]> {
    return paged<Moderator>(await this.call<unknown>(MODERATION_PATHS.moderators)).items;
  }

  appeal(obj: ObjRef, text: string): Promise<{ appeal_id: string; remaining: number }> {
    return this.call(MODERATION_PATHS.appeal, { ...obj, text: text.trim() });
  }

  appealLimit(): Promise<AppealLimit> {
    return this.call(MODERATION_PATHS.appealLimit);
  }

  /** Decides an appeal: the rating to keep or set, whether to restore a hidden work, and why. */
  decide(appealId: string, decision: { nsfw: boolean; restore?: boolean }, reason: string): Promise<Appeal> {
    return this.call(MODERATION_PATHS.decide, { appeal_id: appealId, ...decision, reason: reason.trim() });
  }
}
