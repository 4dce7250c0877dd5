// The IM calls (DESIGN.md "Contracts", spec 3 §7) on the app's API client.
// Answers are decoded tolerantly (model.ts): unknown fields are ignored.
import type { ApiClient } from '../api/client';
import { parseChannel, parseMember, parseMessage } from './model';
import type { Channel, ChannelMember, ChannelMessage } from './model';

/** Messages per history page. */
export const HISTORY_PAGE = 30;

type Json = Record<string, unknown>;

/** The list inside an answer: the answer itself, or its `items` / `list` / `members`. */
function listOf(data: unknown): unknown[] {
  if (Array.isArray(data)) return data;
  if (typeof data === 'object' && data !== null) {
    const d = data as Json;
    for (const k of ['items', 'list', 'channels', 'members']) {
      const v = d[k];
      if (Array.isArray(v)) return v;
    }
  }
  return [];
}

function notNull<T>(v: T | null): v is T {
  return v !== null;
}

/** A history page and whether older messages remain (null when the server does not say). */
export interface HistoryPage {
  items: ChannelMessage[];
  hasMore: boolean | null;
}

export interface CreatedChannel {
  channel_id: string;
  invite_code: string;
}

export class ChannelApi {
  constructor(private readonly api: Pick<ApiClient, 'post'>) {}

  async create(name: string, isPrivate: boolean): Promise<CreatedChannel> {
    const d = await this.api.post<Json>('/api/v1/im/channel/create', { name, private: isPrivate });
    return { channel_id: String(d.channel_id ?? d.id ?? ''), invite_code: String(d.invite_code ?? '') };
  }

  /** Joins by invite code; answers the channel id when the server gives it. */
  async join(inviteCode: string): Promise<string | null> {
    const d = await this.api.post<unknown>('/api/v1/im/channel/join', { invite_code: inviteCode });
    if (typeof d === 'object' && d !== null) {
      const id = (d as Json).channel_id ?? (d as Json).id;
      if (typeof id === 'string' || typeof id === 'number') return String(id);
    }
    return null;
  }

  async joined(): Promise<Channel[]> {
    const d = await this.api.post<unknown>('/api/v1/im/channel/joined/list', {});
    return listOf(d).map(parseChannel).filter(notNull);
  }

  async detail(channelId: string): Promise<Channel | null> {
    const d = await this.api.post<unknown>('/api/v1/im/channel/detail', { channel_id: channelId });
    const inner = typeof d === 'object' && d !== null && 'channel' in d ? (d as Json).channel : d;
    return parseChannel(typeof inner === 'object' && inner !== null ? { channel_id: channelId, ...inner } : null);
  }

  async members(channelId: string): Promise<ChannelMember[]> {
    const d = await this.api.post<unknown>('/api/v1/im/channel/members', { channel_id: channelId });
    return listOf(d).map(parseMember).filter(notNull);
  }

  async quit(channelId: string): Promise<void> {
    await this.api.post<unknown>('/api/v1/im/channel/quit', { channel_id: channelId });
  }

  /** Ends the channel for everyone (owner only). */
  async disband(channelId: string): Promise<void> {
    await this.api.post<unknown>('/api/v1/im/channel/disband', { channel_id: channelId });
  }

  /** Posts one of the caller's finished tasks into a channel as a `task` message. */
  async shareTask(channelId: string, taskId: string): Promise<void> {
    await this.api.post<unknown>('/api/v1/im/message/send', { channel_id: channelId, kind: 'task', task_id: taskId });
  }

  async kickOut(channelId: string, accountId: string): Promise<void> {
    await this.api.post<unknown>('/api/v1/im/channel/kick-out', { channel_id: channelId, account_id: accountId });
  }

  async send(channelId: string, content: string): Promise<number | null> {
    const d = await this.api.post<unknown>('/api/v1/im/message/send', { channel_id: channelId, content });
    const seq = typeof d === 'object' && d !== null ? (d as Json).seq : null;
    return typeof seq === 'number' ? seq : null;
  }

  /** One page, newest first as the server sends it; `beforeSeq` null for the newest page. */
  async history(channelId: string, beforeSeq: number | null, limit = HISTORY_PAGE): Promise<HistoryPage> {
    const body: Json = { channel_id: channelId, limit };
    if (beforeSeq !== null) body.before_seq = beforeSeq;
    const d = await this.api.post<unknown>('/api/v1/im/history', body);
    const hasMore = typeof d === 'object' && d !== null ? (d as Json).has_more : undefined;
    return {
      items: listOf(d)
        .map((m) => parseMessage(m, channelId))
        .filter(notNull),
      hasMore: typeof hasMore === 'boolean' ? hasMore : null,
    };
  }

  /** Marks the channel read up to `seq`. */
  async read(channelId: string, seq: number): Promise<void> {
    await this.api.post<unknown>('/api/v1/im/message/read', { channel_id: channelId, seq });
  }

  /** Unread counters by channel id. */
  async unreadRecord(): Promise<Record<string, number>> {
    const d = await this.api.post<unknown>('/api/v1/im/message/unread-record', {});
    const out: Record<string, number> = {};
    for (const item of listOf(d)) {
      const c = parseChannel(item);
      if (c && c.unread > 0) out[c.channel_id] = c.unread;
    }
    return out;
  }
}
