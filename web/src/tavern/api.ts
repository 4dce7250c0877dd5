// The tavern's calls (characters, chat sessions, datacards; /tmp/notes/chat-api.md)
// on the app's API client. Answers are decoded tolerantly by model.ts.
import { ApiError, NETWORK_ERROR_CODE, NETWORK_ERROR_KEY, SUCCESS_CODE, TOKEN_HEADER } from '../api/client';
import type { ApiClient } from '../api/client';
import {
  itemsOf,
  parseCard,
  parseCharacter,
  parseDatacard,
  parseMessage,
  parseModelInfo,
  parsePreset,
  parseRecent,
  parseSession,
} from './model';
import { parseChatModel, parsePersona, parsePreviewItem, parsePrompts, previewBody } from './extras';
import { parseRagJob } from './rag';
import type { RagJob } from './rag';
import type { ChatModel, Persona, PreviewDraft, PreviewItem, ReportReason } from './extras';
import type {
  CharacterCard,
  CharacterFields,
  CharacterView,
  ChatMessage,
  ChatSession,
  ChatSettings,
  Datacard,
  Gender,
  ModelInfo,
  OrderBy,
  Preset,
  RecentCard,
  TypeFilter,
} from './model';

type Json = Record<string, unknown>;

function notNull<T>(v: T | null): v is T {
  return v !== null;
}

function idOf(d: unknown, field = 'id'): string {
  const v = typeof d === 'object' && d !== null ? (d as Json)[field] : undefined;
  return typeof v === 'string' || typeof v === 'number' ? String(v) : '';
}

export interface CharacterQuery {
  order_by: OrderBy;
  genders: Gender[];
  character_type: TypeFilter;
  keyword: string;
}

export interface CardPage {
  items: CharacterCard[];
  cursor: string | null;
}

export interface SessionPage {
  items: ChatSession[];
  cursor: string | null;
}

/** What chat/start is asked for. */
export type ReplyRequest = { content: string } | { regenerate: true } | { continue: true };

/** Characters per grid page. */
export const PAGE_SIZE = 20;

/** Messages per page of a chat's history (the newest page, then older ones on scroll). */
export const MESSAGE_PAGE = 40;

/** `quick-chat/can-talk`'s answer: `reason` is an error key when `can_talk` is false. */
export interface CanTalk {
  can_talk: boolean;
  reason: string;
}

function cursorOf(d: unknown): string | null {
  const c = typeof d === 'object' && d !== null ? (d as Json).cursor : null;
  return typeof c === 'string' && c !== '' ? c : typeof c === 'number' ? String(c) : null;
}

export class TavernApi {
  constructor(
    private readonly api: Pick<ApiClient, 'post'>,
    private readonly getToken: () => string | null = () => null,
    private readonly fetchFn: typeof fetch = (input, init) => globalThis.fetch(input, init),
  ) {}

  // Characters -------------------------------------------------------------

  async list(query: CharacterQuery, cursor: string | null, limit = PAGE_SIZE): Promise<CardPage> {
    const body: Json = { ...query, limit };
    if (cursor !== null) body.cursor = cursor;
    const d = await this.api.post<unknown>('/api/v1/square/v3/character/list', body);
    return { items: itemsOf(d).map(parseCard).filter(notNull), cursor: cursorOf(d) };
  }

  async mine(): Promise<CharacterCard[]> {
    const d = await this.api.post<unknown>('/api/v1/tavern-pro/my', {});
    return itemsOf(d).map(parseCard).filter(notNull);
  }

  /** The caller's recently chatted characters, most recent first. */
  async latest(limit = 12): Promise<RecentCard[]> {
    const d = await this.api.post<unknown>('/api/v1/character/latest', { limit });
    return itemsOf(d).map(parseRecent).filter(notNull);
  }

  /** Takes a character off the caller's "recently chatted" row (its chats stay). */
  async removeRecent(id: string): Promise<void> {
    await this.api.post<unknown>('/api/v1/tavern-pro/recently/remove', { id });
  }

  /** The create form's starter templates. */
  async presets(): Promise<Preset[]> {
    const d = await this.api.post<unknown>('/api/v1/tavern-pro/preset/list', {});
    return itemsOf(d).map(parsePreset).filter(notNull);
  }

  async detail(id: string): Promise<CharacterView> {
    const d = await this.api.post<unknown>('/api/v1/character/detail', { id });
    const c = parseCharacter(d);
    if (c === null) throw new ApiError({ code: NETWORK_ERROR_CODE, key: NETWORK_ERROR_KEY, msg: 'bad character' }, 200);
    return c;
  }

  /** Creates (no id) or edits one of the caller's characters; answers its id. */
  async publish(fields: CharacterFields, id: string | null): Promise<string> {
    const body: Json = { ...fields };
    if (fields.settings === null) delete body.settings;
    if (id !== null) body.id = id;
    return idOf(await this.api.post<unknown>('/api/v1/tavern-pro/publish', body));
  }

  async remove(id: string): Promise<void> {
    await this.api.post<unknown>('/api/v1/tavern-pro/delete', { id });
  }

  async defaultModel(): Promise<ModelInfo | null> {
    const d = await this.api.post<unknown>('/api/v1/character/default_setting', {});
    return typeof d === 'object' && d !== null ? parseModelInfo((d as Json).model) : null;
  }

  /** Imports a V2 (or V1) card file, JSON or PNG; answers the new draft's id. */
  async importCard(file: Blob): Promise<string> {
    const type = file.type === 'image/png' ? 'image/png' : 'application/json';
    return idOf(await this.postRaw('/api/v1/tavern-pro/card/import', file, type));
  }

  /**
   * Sends a document (text, Markdown, HTML or PDF) to become datacards, for
   * `characterId` when given, as a `multipart/form-data` form (`file`, with
   * its name and type, and `character_id`); answers the job's id (poll `ragProgress`).
   */
  async importDocument(file: File, characterId: string | null): Promise<string> {
    return idOf(await this.postRaw('/api/v1/langflow/parse-rag-file', ragForm(file, characterId), null));
  }

  /** `langflow/progress`: the document job, decoded by rag.ts. */
  async ragProgress(id: string): Promise<RagJob | null> {
    return parseRagJob(await this.api.post<unknown>('/api/v1/langflow/progress', { id }));
  }

  /**
   * A raw body (a file) posted with the token, or a form (`type` null: the
   * browser writes the multipart type with its boundary); answers the
   * envelope's data or throws its error.
   */
  private async postRaw(path: string, body: Blob | FormData, type: string | null): Promise<unknown> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (type !== null) headers['Content-Type'] = type;
    const token = this.getToken();
    if (token) headers[TOKEN_HEADER] = token;
    let res: Response;
    try {
      res = await this.fetchFn(path, { method: 'POST', headers, body });
    } catch {
      throw new ApiError({ code: NETWORK_ERROR_CODE, key: NETWORK_ERROR_KEY, msg: 'network error' }, 0);
    }
    let payload: unknown;
    try {
      payload = await res.json();
    } catch {
      payload = undefined;
    }
    const status = typeof payload === 'object' && payload !== null ? (payload as Json).status : undefined;
    if (typeof status !== 'object' || status === null || typeof (status as Json).code !== 'number') {
      throw new ApiError({ code: NETWORK_ERROR_CODE, key: NETWORK_ERROR_KEY, msg: `HTTP ${res.status}` }, res.status);
    }
    const s = status as Json;
    if (s.code !== SUCCESS_CODE) {
      throw new ApiError(
        { code: s.code as number, key: typeof s.key === 'string' ? s.key : null, msg: typeof s.msg === 'string' ? s.msg : '' },
        res.status,
      );
    }
    return (payload as Json).data;
  }

  /** Downloads a card file (PNG with the card inside, or JSON) and answers it with its file name. */
  async exportCard(id: string, format: 'png' | 'json'): Promise<{ blob: Blob; fileName: string }> {
    const headers: Record<string, string> = {};
    const token = this.getToken();
    if (token) headers[TOKEN_HEADER] = token;
    const url = `/api/v1/tavern-pro/card/export?id=${encodeURIComponent(id)}&format=${format}`;
    let res: Response;
    try {
      res = await this.fetchFn(url, { headers });
    } catch {
      throw new ApiError({ code: NETWORK_ERROR_CODE, key: NETWORK_ERROR_KEY, msg: 'network error' }, 0);
    }
    const contentType = res.headers.get('Content-Type') ?? '';
    if (!res.ok || (format === 'png' && contentType.includes('json') && !contentType.includes('png'))) {
      let status: Json = {};
      try {
        const payload = (await res.json()) as Json;
        if (typeof payload.status === 'object' && payload.status !== null) status = payload.status as Json;
      } catch {
        // not an envelope
      }
      throw new ApiError(
        {
          code: typeof status.code === 'number' ? status.code : NETWORK_ERROR_CODE,
          key: typeof status.key === 'string' ? status.key : NETWORK_ERROR_KEY,
          msg: typeof status.msg === 'string' ? status.msg : `HTTP ${res.status}`,
        },
        res.status,
      );
    }
    const disposition = res.headers.get('Content-Disposition') ?? '';
    const m = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition);
    let fileName = `character.${format}`;
    if (m?.[1]) {
      try {
        fileName = decodeURIComponent(m[1]);
      } catch {
        fileName = m[1];
      }
    }
    return { blob: await res.blob(), fileName };
  }

  // Sessions and messages -------------------------------------------------

  async createSession(characterId: string): Promise<string> {
    return idOf(await this.api.post<unknown>('/api/v1/character/session/create', { character_id: characterId }), 'session_id');
  }

  async sessions(characterId: string | null, limit = 30): Promise<SessionPage> {
    const body: Json = { limit };
    if (characterId !== null) body.character_id = characterId;
    const d = await this.api.post<unknown>('/api/v1/character/session/list', body);
    return { items: itemsOf(d).map(parseSession).filter(notNull), cursor: cursorOf(d) };
  }

  async renameSession(sessionId: string, title: string): Promise<void> {
    await this.api.post<unknown>('/api/v1/character/session/edit', { session_id: sessionId, title });
  }

  /** Changes a session's title and/or model settings; answers the session as stored (null if the answer is not one). */
  async editSession(sessionId: string, change: { title?: string; settings?: ChatSettings }): Promise<ChatSession | null> {
    const d = await this.api.post<unknown>('/api/v1/character/session/edit', { session_id: sessionId, ...change });
    return parseSession(d);
  }

  /** Deletes every chat with the character; answers how many went. */
  async deleteAllSessions(characterId: string): Promise<number> {
    const d = await this.api.post<unknown>('/api/v1/character/session/delete-all', { character_id: characterId });
    const n = typeof d === 'object' && d !== null ? (d as Json).deleted : 0;
    return typeof n === 'number' ? n : 0;
  }

  /** Whether the caller may chat with the character now (visitors: false, "NeedLogin"). */
  async canTalk(characterId: string): Promise<CanTalk> {
    const d = await this.api.post<unknown>('/api/v1/character/quick-chat/can-talk', { character_id: characterId });
    const o = typeof d === 'object' && d !== null ? (d as Json) : {};
    return { can_talk: o.can_talk === true, reason: typeof o.reason === 'string' ? o.reason : '' };
  }

  /** The draft message rewritten to read well (spelling, grammar), for the session's character. */
  async polish(sessionId: string, content: string): Promise<string> {
    const d = await this.api.post<unknown>('/api/v1/character/message/polish', { session_id: sessionId, content });
    const c = typeof d === 'object' && d !== null ? (d as Json).content : null;
    return typeof c === 'string' ? c : '';
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.api.post<unknown>('/api/v1/character/session/delete', { session_id: sessionId });
  }

  /** The newest page of messages, or (with `beforeIdx`) the page before that index; oldest first. */
  async messages(sessionId: string, limit = MESSAGE_PAGE, beforeIdx: number | null = null): Promise<ChatMessage[]> {
    const body: Json = { session_id: sessionId, limit };
    if (beforeIdx !== null) body.before_idx = beforeIdx;
    const d = await this.api.post<unknown>('/api/v1/character/session/message/list', body);
    return itemsOf(d)
      .map(parseMessage)
      .filter(notNull)
      .sort((a, b) => a.idx - b.idx);
  }

  /** The newest assistant message (resume after a reconnect). */
  async latestState(sessionId: string): Promise<ChatMessage | null> {
    const d = await this.api.post<unknown>('/api/v1/character/session/msg/latest_state_info', { session_id: sessionId });
    return parseMessage(d);
  }

  /** Starts a reply; answers the assistant message's id. */
  async startReply(sessionId: string, request: ReplyRequest): Promise<string> {
    return idOf(await this.api.post<unknown>('/api/v1/character/session/chat/start', { session_id: sessionId, ...request }), 'msg_id');
  }

  async stopReply(sessionId: string): Promise<void> {
    await this.api.post<unknown>('/api/v1/character/session/chat/stop', { session_id: sessionId });
  }

  async editMessage(sessionId: string, msgId: string, content: string): Promise<void> {
    await this.api.post<unknown>('/api/v1/character/session/message/edit', { session_id: sessionId, msg_id: msgId, content });
  }

  async deleteMessage(sessionId: string, msgId: string): Promise<void> {
    await this.api.post<unknown>('/api/v1/character/session/message/delete', { session_id: sessionId, msg_id: msgId });
  }

  async likeMessage(sessionId: string, msgId: string, like: -1 | 0 | 1): Promise<void> {
    await this.api.post<unknown>('/api/v1/character/session/message/like', { session_id: sessionId, msg_id: msgId, like });
  }

  async copyMessage(sessionId: string, msgId: string): Promise<string> {
    const d = await this.api.post<unknown>('/api/v1/character/session/message/copy_idx', { session_id: sessionId, msg_id: msgId });
    const c = typeof d === 'object' && d !== null ? (d as Json).content : null;
    return typeof c === 'string' ? c : '';
  }

  async suggestions(sessionId: string): Promise<string[]> {
    const d = await this.api.post<unknown>('/api/v1/character/reply/recommend', { session_id: sessionId });
    return itemsOf(d).filter((x): x is string => typeof x === 'string' && x.trim() !== '');
  }

  async bindDatacard(sessionId: string, datacardId: string): Promise<void> {
    await this.api.post<unknown>('/api/v1/character/session/bind-datacard', { session_id: sessionId, datacard_id: datacardId });
  }

  async unbindDatacard(sessionId: string, datacardId: string): Promise<void> {
    await this.api.post<unknown>('/api/v1/character/session/remove-datacard', { session_id: sessionId, datacard_id: datacardId });
  }

  // Datacards ------------------------------------------------------------

  async datacards(): Promise<Datacard[]> {
    const d = await this.api.post<unknown>('/api/v1/datacard/my', {});
    return itemsOf(d).map(parseDatacard).filter(notNull);
  }

  async createDatacard(title: string, content: string): Promise<string> {
    return idOf(await this.api.post<unknown>('/api/v1/datacard/create', { title, content }));
  }

  async editDatacard(id: string, title: string, content: string): Promise<void> {
    await this.api.post<unknown>('/api/v1/datacard/edit', { id, title, content });
  }

  async deleteDatacard(id: string): Promise<void> {
    await this.api.post<unknown>('/api/v1/datacard/delete', { id });
  }

  // Side calls (character_extras) ------------------------------------------

  /** Reports someone else's character; answers whether it replaced the caller's earlier report. */
  async report(characterId: string, reason: ReportReason, detail: string): Promise<boolean> {
    const d = await this.api.post<unknown>('/api/v1/report/ai-character', { character_id: characterId, reason, detail: detail.trim() });
    return typeof d === 'object' && d !== null && (d as Json).updated === true;
  }

  /** The caller's chat persona (who `{{user}}` is). */
  async persona(): Promise<Persona> {
    return parsePersona(await this.api.post<unknown>('/api/v1/account/character/setting/get', {}));
  }

  /** Changes the chat persona (absent fields stay); answers it as stored. */
  async updatePersona(change: { display_name?: string; persona?: string }): Promise<Persona> {
    return parsePersona(await this.api.post<unknown>('/api/v1/account/character/setting/update', change));
  }

  /** How an unsaved draft's greeting and example dialogue read in a chat. */
  async preview(draft: PreviewDraft): Promise<PreviewItem[]> {
    const d = await this.api.post<unknown>('/api/v1/tavern-pro/preview/list', previewBody(draft));
    return itemsOf(d).map(parsePreviewItem).filter(notNull);
  }

  /** Up to three picture prompts for a saved character, written by the language model. */
  async imagePrompts(characterId: string): Promise<string[]> {
    return parsePrompts(itemsOf(await this.api.post<unknown>('/api/v1/character/agent/recommend_promot', { character_id: characterId })));
  }

  /** The language models chats use (the server has one). */
  async models(): Promise<ChatModel[]> {
    return itemsOf(await this.api.post<unknown>('/api/v1/character/model_list', {})).map(parseChatModel).filter(notNull);
  }
}

/** The `langflow/parse-rag-file` form: the document in `file` (with its name), and `character_id` when given. */
export function ragForm(file: File, characterId: string | null): FormData {
  const form = new FormData();
  form.append('file', file, file.name);
  if (characterId !== null && characterId !== '') form.append('character_id', characterId);
  return form;
}
