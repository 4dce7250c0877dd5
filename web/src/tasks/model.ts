// The pure part of the live task list: merging pushed and polled task
// objects into the list, the progress rule, removing user-cancelled tasks,
// when to poll, and the filters. No timers, no I/O: sync.ts drives these.
import type { SocketState } from '../socket/atoms';
import { TaskStatus, USER_CANCELLED } from './types';
import type { ListAnswer, ListRequest, Task } from './types';

/** Fallback polling period (spec 1 §9). */
export const POLL_MS = 3_000;
/** Keyword filter debounce (spec 1 §9). */
export const FILTER_DEBOUNCE_MS = 1_000;
/** How long the success notice stays up (spec 1 §4, §9). */
export const SUCCESS_NOTICE_MS = 5_000;
/** Tasks per page of the list. */
export const PAGE_SIZE = 20;

/**
 * The list: known tasks by id and their order, newest first. An id in
 * `order` without an entry in `byId` is a task just created whose first
 * state has not arrived yet.
 */
export interface TaskListState {
  byId: Readonly<Record<string, Task>>;
  order: readonly string[];
  /** Paging state for the next page; null when there is none. */
  cursor: string | null;
  /** True once the first page answered. */
  loaded: boolean;
}

export const EMPTY_LIST: TaskListState = { byId: {}, order: [], cursor: null, loaded: false };

/**
 * Whether a task is the user's own: channel members are pushed each other's
 * channel tasks too. A task not yet fetched, or without an owner (an older
 * server, a visitor's), counts as own.
 */
export function isOwnTask(task: Pick<Task, 'account_id'> | undefined, me: string | null): boolean {
  const owner = task?.account_id;
  return owner === undefined || owner === null || me === null || owner === me;
}

export function isActive(task: Pick<Task, 'status'>): boolean {
  return task.status === TaskStatus.Queued || task.status === TaskStatus.Running;
}

export function isFinal(task: Pick<Task, 'status'>): boolean {
  return task.status === TaskStatus.Success || task.status === TaskStatus.Ended;
}

export function isUserCancelled(task: Pick<Task, 'status_desc'>): boolean {
  return task.status_desc.trim().toLowerCase() === USER_CANCELLED;
}

/** A user-cancelled task leaves the list unless its channel is PRIVATE (spec 1 §4). */
export function leavesListWhenCancelled(task: Pick<Task, 'status_desc' | 'channel_private'>): boolean {
  return isUserCancelled(task) && task.channel_private !== true;
}

/**
 * Spec 1 §4: an update whose progress is lower than the present one is
 * ignored, except progress 0 and 100. A finished task does not go back to
 * queued or running either (a late push after the final state).
 */
export function acceptUpdate(present: Task | undefined, next: Task): boolean {
  if (!present) return true;
  if (isFinal(present) && !isFinal(next)) return false;
  if (next.process === 0 || next.process === 100) return true;
  return next.process >= present.process;
}

/** What a merge changed that the page reacts to. */
export interface MergeEvents {
  /** Tasks that became successful with this merge (not ones loaded already done). */
  succeeded: Task[];
  /** Tasks that failed or ended with this merge. */
  ended: Task[];
}

export interface MergeOptions {
  /**
   * Whether tasks not in the list are added (pushes of tasks created in
   * another tab). Polls answer only ids we asked about.
   */
  addUnknown: boolean;
  /** Unknown tasks are added only when they match the list's filter. */
  filter?: TaskFilter;
}

/** Newest first by creation time; tasks still waiting for their first state on top. */
function sortOrder(byId: Readonly<Record<string, Task>>, order: readonly string[]): string[] {
  const pending = order.filter((id) => !byId[id]);
  const known = order.filter((id) => byId[id]);
  known.sort((a, b) => (byId[b]?.create_at ?? 0) - (byId[a]?.create_at ?? 0));
  return [...pending, ...known];
}

/** Merges task objects (a push, a poll answer, a list page) into the list. */
export function mergeTasks(
  state: TaskListState,
  tasks: readonly Task[],
  options: MergeOptions,
): { state: TaskListState; events: MergeEvents } {
  const byId: Record<string, Task> = { ...state.byId };
  const order = [...state.order];
  const events: MergeEvents = { succeeded: [], ended: [] };
  let changed = false;
  for (const task of tasks) {
    const listed = order.includes(task.id);
    const present = byId[task.id];
    if (leavesListWhenCancelled(task)) {
      if (listed) {
        delete byId[task.id];
        order.splice(order.indexOf(task.id), 1);
        changed = true;
      }
      continue;
    }
    if (!listed) {
      if (!options.addUnknown) continue;
      if (options.filter && !matchesFilter(task, options.filter)) continue;
      order.push(task.id);
    }
    if (!acceptUpdate(present, task)) continue;
    const wasFinal = present ? isFinal(present) : false;
    if (!wasFinal && (present !== undefined || listed)) {
      if (task.status === TaskStatus.Success) events.succeeded.push(task);
      if (task.status === TaskStatus.Ended) events.ended.push(task);
    }
    byId[task.id] = task;
    changed = true;
  }
  if (!changed) return { state, events };
  return { state: { ...state, byId, order: sortOrder(byId, order) }, events };
}

/** Puts a just-created task on top of the list, to be filled by its first state. */
export function trackId(state: TaskListState, id: string): TaskListState {
  if (state.order.includes(id)) return state;
  return { ...state, order: [id, ...state.order] };
}

export function removeTask(state: TaskListState, id: string): TaskListState {
  if (!state.order.includes(id)) return state;
  const byId = { ...state.byId };
  delete byId[id];
  return { ...state, byId, order: state.order.filter((x) => x !== id) };
}

/**
 * The first page of a (re)load. With `replace` (the filter changed) the
 * list becomes that page; otherwise (page load, resync) the page is merged
 * in, keeping later pages already shown and tasks still waiting for their
 * first state.
 */
export function applyFirstPage(state: TaskListState, answer: ListAnswer, replace: boolean): TaskListState {
  const base: TaskListState = replace
    ? { byId: {}, order: state.order.filter((id) => !state.byId[id]), cursor: null, loaded: false }
    : state;
  const merged = mergeTasks(base, answer.items, { addUnknown: true }).state;
  return { ...merged, cursor: replace || !state.loaded ? answer.cursor : state.cursor, loaded: true };
}

/** A further page, appended. */
export function applyNextPage(state: TaskListState, answer: ListAnswer): TaskListState {
  const merged = mergeTasks(state, answer.items, { addUnknown: true }).state;
  return { ...merged, cursor: answer.cursor };
}

/** Ids to ask batch-progress about: running or queued tasks, and tasks without a first state. */
export function idsToPoll(state: TaskListState): string[] {
  return state.order.filter((id) => {
    const task = state.byId[id];
    return task === undefined || isActive(task);
  });
}

/**
 * Polling is the fallback of socket pushes: it runs only while the socket
 * is not online and some task is queued, running or waiting for its first state.
 */
export function shouldPoll(state: TaskListState, socket: SocketState): boolean {
  return socket !== 'online' && idsToPoll(state).length > 0;
}

// ---- Filters ---------------------------------------------------------------

export interface TaskFilter {
  /** Inclusive bounds on creation time, unix ms; null for open. */
  timeFrom: number | null;
  timeTo: number | null;
  keyword: string;
}

export const NO_FILTER: TaskFilter = { timeFrom: null, timeTo: null, keyword: '' };

/**
 * Whether going from `applied` to `next` needs a new list: spec 1 §5 "Filter
 * changes apply only when the time range changes", read as: a change that
 * leaves the effective range and the (trimmed, case-folded) keyword as they
 * were — re-picking the same dates, adding spaces — does not refetch.
 */
export function filterChanged(applied: TaskFilter, next: TaskFilter): boolean {
  return (
    applied.timeFrom !== next.timeFrom ||
    applied.timeTo !== next.timeTo ||
    normKeyword(applied.keyword) !== normKeyword(next.keyword)
  );
}

function normKeyword(k: string): string {
  return k.trim().toLowerCase();
}

/** The `list` request body for a filter. */
export function listRequest(filter: TaskFilter, cursor: string | null = null): ListRequest {
  const req: ListRequest = { limit: PAGE_SIZE };
  if (filter.timeFrom !== null) req.time_from = filter.timeFrom;
  if (filter.timeTo !== null) req.time_to = filter.timeTo;
  const keyword = filter.keyword.trim();
  if (keyword !== '') req.keyword = keyword;
  if (cursor !== null) req.cursor = cursor;
  return req;
}

/** The server's filter, applied to a pushed task (same rules as `list`). */
export function matchesFilter(task: Pick<Task, 'create_at' | 'prompt'>, filter: TaskFilter): boolean {
  if (filter.timeFrom !== null && task.create_at < filter.timeFrom) return false;
  if (filter.timeTo !== null && task.create_at > filter.timeTo) return false;
  const k = normKeyword(filter.keyword);
  return k === '' || task.prompt.toLowerCase().includes(k);
}

/**
 * A day range from two `<input type="date">` values (`YYYY-MM-DD`, local
 * time; '' for open): from the start of the first day to the end of the last.
 */
export function dayRange(from: string, to: string): { timeFrom: number | null; timeTo: number | null } {
  const start = parseDay(from);
  const end = parseDay(to);
  return {
    timeFrom: start === null ? null : start.getTime(),
    timeTo: end === null ? null : new Date(end.getFullYear(), end.getMonth(), end.getDate() + 1).getTime() - 1,
  };
}

function parseDay(value: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return null;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isNaN(d.getTime()) ? null : d;
}

/** Accepts a pushed or polled object as a task when it has the fields the list reads. */
export function asTask(value: unknown): Task | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (typeof v.id !== 'string' || typeof v.status !== 'number' || typeof v.process !== 'number') return null;
  return {
    rest_estimate_time: 0,
    estimate_time: 0,
    pub_community: false,
    nsfw: false,
    category: 1,
    status_desc: '',
    expiration_time: null,
    create_at: 0,
    sub_status: 0,
    type: 1,
    preprocess_images: [],
    img_uris: [],
    reverse_prompts: [],
    deduction_detail: { coins: 0, state: '' },
    reason: null,
    outputs: [],
    engine: null,
    prompt: '',
    width: 0,
    height: 0,
    n_iter: 1,
    seed: 0,
    queue_position: null,
    speed_type: 1,
    saved: false,
    ...(v as Partial<Task>),
    id: v.id,
    status: v.status,
    process: v.process,
  };
}
