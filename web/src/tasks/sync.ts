// Keeps the task list live: plain code (no React), like the socket client.
//
// - Socket pushes (frame 10) carry the polled task and are merged at once;
//   frame 13 `{kind: "credits"}` refreshes the balance.
// - Polling with batch-progress every 3000 ms is the fallback: it runs only
//   while the socket is not online and some task is queued or running.
// - On start, on login, and when the socket comes back without a full
//   replay, the list is fetched again so a reload or a second tab shows the
//   same live state.
import { accountAtom, tokenAtom } from '../account/atoms';
import { toastAtom } from '../app/toast';
import { messagesFor, translate } from '../i18n/messages';
import type { MessageKey } from '../i18n/messages';
import { localeAtom } from '../router/router';
import { recentFramesAtom, socketStateAtom } from '../socket/atoms';
import { FrameType } from '../socket/frames';
import type { PushFrame } from '../socket/frames';
import type { AppStore } from '../state/jotai';
import { creditsAtom, taskFilterAtom, tasksAtom, tasksErrorAtom, tasksLoadingAtom } from './atoms';
import { errorText } from './errors';
import {
  applyFirstPage,
  applyNextPage,
  asTask,
  filterChanged,
  idsToPoll,
  isOwnTask,
  listRequest,
  mergeTasks,
  POLL_MS,
  removeTask,
  shouldPoll,
  SUCCESS_NOTICE_MS,
} from './model';
import type { MergeEvents, TaskFilter } from './model';
import type { Assets, ListAnswer, Task } from './types';

/** The part of the API client the sync uses. */
export interface TaskApi {
  post<T>(path: string, body?: unknown): Promise<T>;
}

export interface TaskSyncOptions {
  store: AppStore;
  api: TaskApi;
}

/** Pushed task ids seen only through the frame log are fetched together after this delay. */
const PUSH_BATCH_MS = 50;

export class TaskSync {
  private readonly store: AppStore;
  private readonly api: TaskApi;
  private users = 0;
  private unsubs: (() => void)[] = [];
  private pollTimer: ReturnType<typeof setTimeout> | null = null;
  private pushTimer: ReturnType<typeof setTimeout> | null = null;
  private pushedIds = new Set<string>();
  /** Ids of tracked tasks whose first state was asked for already. */
  private requested = new Set<string>();
  /** Last frame-log entry read (when pushes are not handed over directly). */
  private lastLogId = 0;
  /** True once the socket module hands pushes over through {@link onPush}. */
  private direct = false;
  private wasOnline = false;
  /** Numbers list fetches, so that an older answer never overwrites a newer one. */
  private listGen = 0;
  private noticeId = -1;

  constructor(options: TaskSyncOptions) {
    this.store = options.store;
    this.api = options.api;
  }

  /** Starts following (reference-counted: each mounted panel starts and stops it). */
  start(): () => void {
    this.users += 1;
    if (this.users === 1) this.begin();
    return () => {
      this.users -= 1;
      if (this.users === 0) this.end();
    };
  }

  private begin(): void {
    const s = this.store;
    this.lastLogId = s.get(recentFramesAtom)[0]?.id ?? 0;
    this.wasOnline = s.get(socketStateAtom) === 'online';
    this.unsubs = [
      s.sub(tasksAtom, () => {
        this.fetchNewlyTracked();
        this.updatePolling();
      }),
      s.sub(socketStateAtom, () => this.onSocketState()),
      s.sub(recentFramesAtom, () => this.readFrameLog()),
      s.sub(tokenAtom, () => this.onToken()),
    ];
    if (this.token() !== null) {
      void this.reload(false);
      void this.refreshCredits();
    }
    this.fetchNewlyTracked();
    this.updatePolling();
  }

  private end(): void {
    for (const u of this.unsubs) u();
    this.unsubs = [];
    this.clearPoll();
    if (this.pushTimer !== null) clearTimeout(this.pushTimer);
    this.pushTimer = null;
  }

  private token(): string | null {
    return this.store.get(tokenAtom);
  }

  // ---- Pushes ---------------------------------------------------------------

  /** A pushed frame from the socket module (its `onPush` option). */
  onPush(frame: PushFrame): void {
    this.direct = true;
    if (frame.type === FrameType.TaskUpdate) {
      const task = asTask(frame.content);
      if (task) this.merge([task], true);
    } else if (frame.type === FrameType.Notification && frame.content.kind === 'credits') {
      const { balance, available } = frame.content;
      if (typeof balance === 'number' && typeof available === 'number') {
        this.store.set(creditsAtom, { coins: balance, available, held: Math.max(0, balance - available) });
      } else {
        void this.refreshCredits();
      }
    }
  }

  /** The socket came back but could not replay everything (its `onResyncNeeded` option). */
  onResync(): void {
    void this.reload(false);
    void this.refreshCredits();
  }

  /**
   * Without {@link onPush} wired, the frame log still says which task was
   * pushed: fetch those tasks' state.
   */
  private readFrameLog(): void {
    const log = this.store.get(recentFramesAtom);
    const fresh = log.filter((e) => e.id > this.lastLogId);
    if (log[0]) this.lastLogId = Math.max(this.lastLogId, log[0].id);
    if (this.direct) return;
    for (const entry of fresh) {
      if (entry.type === FrameType.TaskUpdate) {
        const id = /^task (.+)$/.exec(entry.summary)?.[1];
        if (id) this.pushedIds.add(id);
      } else if (entry.type === FrameType.Notification) {
        void this.refreshCredits();
      }
    }
    if (this.pushedIds.size > 0 && this.pushTimer === null) {
      this.pushTimer = setTimeout(() => {
        this.pushTimer = null;
        const ids = [...this.pushedIds];
        this.pushedIds.clear();
        void this.fetchTasks(ids, true);
      }, PUSH_BATCH_MS);
    }
  }

  private onSocketState(): void {
    const online = this.store.get(socketStateAtom) === 'online';
    if (online && !this.wasOnline) {
      // Pushes flow again: catch up on what may have changed meanwhile.
      const ids = idsToPoll(this.store.get(tasksAtom));
      if (ids.length > 0) void this.fetchTasks(ids, false);
    }
    this.wasOnline = online;
    this.updatePolling();
  }

  private onToken(): void {
    this.listGen += 1;
    this.requested.clear();
    this.store.set(tasksAtom, { byId: {}, order: [], cursor: null, loaded: false });
    this.store.set(creditsAtom, null);
    this.store.set(tasksErrorAtom, null);
    if (this.token() !== null) {
      void this.reload(true);
      void this.refreshCredits();
    }
  }

  // ---- Merging --------------------------------------------------------------

  private merge(tasks: readonly Task[], addUnknown: boolean): void {
    const { state, events } = mergeTasks(this.store.get(tasksAtom), tasks, {
      addUnknown,
      filter: this.store.get(taskFilterAtom),
    });
    this.store.set(tasksAtom, state);
    this.react(events);
  }

  private react(events: MergeEvents): void {
    const me = this.store.get(accountAtom)?.id ?? null;
    const mine = events.succeeded.filter((t) => isOwnTask(t, me));
    if (mine.length > 0) {
      const single = mine.length === 1 ? successNotice(mine[0]) : null;
      this.notice(single ?? 'tasks.notice.successMany', {
        count: mine.length,
      });
    }
    if ((events.succeeded.length > 0 || events.ended.length > 0) && this.token() !== null) {
      void this.refreshCredits();
    }
  }

  /** The success notice: the app's toast, up for 5000 ms (spec 1 §4). */
  private notice(key: MessageKey, params: Record<string, number>): void {
    const text = translate(messagesFor(this.store.get(localeAtom)), key, params);
    const id = this.noticeId--;
    this.store.set(toastAtom, { id, text });
    setTimeout(() => {
      if (this.store.get(toastAtom)?.id === id) this.store.set(toastAtom, null);
    }, SUCCESS_NOTICE_MS);
  }

  // ---- Fetching -------------------------------------------------------------

  private async fetchTasks(ids: readonly string[], addUnknown: boolean): Promise<void> {
    if (ids.length === 0) return;
    try {
      const answer = await this.api.post<{ items: unknown[] }>('/api/v1/task/batch-progress', { task_ids: ids });
      const tasks = answer.items.map(asTask).filter((t): t is Task => t !== null);
      this.merge(tasks, addUnknown);
    } catch {
      // A failed poll is retried by the next one (or the next push).
    }
  }

  /** Tracked tasks without a first state: ask for it once. */
  private fetchNewlyTracked(): void {
    const state = this.store.get(tasksAtom);
    const ids = state.order.filter((id) => !state.byId[id] && !this.requested.has(id));
    if (ids.length === 0) return;
    for (const id of ids) this.requested.add(id);
    void this.fetchTasks(ids, false);
  }

  /** Fetches the first page; `replace` when the filter changed. */
  async reload(replace: boolean): Promise<void> {
    const gen = ++this.listGen;
    const filter = this.store.get(taskFilterAtom);
    this.store.set(tasksLoadingAtom, true);
    try {
      const answer = await this.api.post<ListAnswer>('/api/v1/task/list', listRequest(filter));
      if (gen !== this.listGen) return;
      this.store.set(tasksAtom, applyFirstPage(this.store.get(tasksAtom), normalise(answer), replace));
      this.store.set(tasksErrorAtom, null);
    } catch (e) {
      if (gen === this.listGen) this.store.set(tasksErrorAtom, errorText(e));
    } finally {
      if (gen === this.listGen) this.store.set(tasksLoadingAtom, false);
    }
  }

  /** Fetches the next page with the cursor. */
  async loadMore(): Promise<void> {
    const { cursor } = this.store.get(tasksAtom);
    if (cursor === null || this.store.get(tasksLoadingAtom)) return;
    const gen = ++this.listGen;
    this.store.set(tasksLoadingAtom, true);
    try {
      const answer = await this.api.post<ListAnswer>(
        '/api/v1/task/list',
        listRequest(this.store.get(taskFilterAtom), cursor),
      );
      if (gen !== this.listGen) return;
      this.store.set(tasksAtom, applyNextPage(this.store.get(tasksAtom), normalise(answer)));
      this.store.set(tasksErrorAtom, null);
    } catch (e) {
      if (gen === this.listGen) this.store.set(tasksErrorAtom, errorText(e));
    } finally {
      if (gen === this.listGen) this.store.set(tasksLoadingAtom, false);
    }
  }

  /** Applies a new filter: refetches only when it differs from the applied one. */
  setFilter(next: TaskFilter): void {
    if (!filterChanged(this.store.get(taskFilterAtom), next)) return;
    this.store.set(taskFilterAtom, next);
    void this.reload(true);
  }

  async refreshCredits(): Promise<void> {
    if (this.token() === null) return;
    try {
      const assets = await this.api.post<Assets>('/api/v1/payment/assets/get');
      this.store.set(creditsAtom, { coins: assets.coins, held: assets.held, available: assets.available });
    } catch {
      // Keep the last known balance.
    }
  }

  // ---- Task operations ------------------------------------------------------

  /** Cancels a queued or running task; the answer (user cancelled) removes it. */
  async cancel(id: string): Promise<void> {
    const answer = await this.api.post<unknown>('/api/v1/task/operate', { id, operate: 'cancel' });
    const task = asTask(answer);
    if (task) this.merge([task], false);
    else this.store.set(tasksAtom, removeTask(this.store.get(tasksAtom), id));
    void this.refreshCredits();
  }

  async remove(id: string): Promise<void> {
    await this.api.post<unknown>('/api/v1/task/delete', { id });
    this.store.set(tasksAtom, removeTask(this.store.get(tasksAtom), id));
  }

  async save(id: string): Promise<void> {
    await this.api.post<unknown>('/api/v1/task/save-personal', { id });
    const state = this.store.get(tasksAtom);
    const task = state.byId[id];
    if (task) this.store.set(tasksAtom, { ...state, byId: { ...state.byId, [id]: { ...task, saved: true } } });
  }

  // ---- Polling --------------------------------------------------------------

  private updatePolling(): void {
    const want = shouldPoll(this.store.get(tasksAtom), this.store.get(socketStateAtom));
    if (want && this.pollTimer === null) {
      this.pollTimer = setTimeout(() => {
        this.pollTimer = null;
        void this.pollOnce();
      }, POLL_MS);
    } else if (!want) {
      this.clearPoll();
    }
  }

  private async pollOnce(): Promise<void> {
    const state = this.store.get(tasksAtom);
    if (shouldPoll(state, this.store.get(socketStateAtom))) await this.fetchTasks(idsToPoll(state), false);
    if (this.users > 0) this.updatePolling();
  }

  private clearPoll(): void {
    if (this.pollTimer !== null) clearTimeout(this.pollTimer);
    this.pollTimer = null;
  }
}

function normalise(answer: ListAnswer): ListAnswer {
  return {
    items: answer.items.map(asTask).filter((t): t is Task => t !== null),
    cursor: typeof answer.cursor === 'string' && answer.cursor !== '' ? answer.cursor : null,
  };
}

/** The notice of one finished task: video, audio or image. */
function successNotice(t: { video_uris?: string[]; audio_uris?: string[] } | undefined) {
  if ((t?.video_uris?.length ?? 0) > 0) return 'tasks.notice.videoSuccess' as const;
  if ((t?.audio_uris?.length ?? 0) > 0) return 'tasks.notice.audioSuccess' as const;
  return 'tasks.notice.success' as const;
}
