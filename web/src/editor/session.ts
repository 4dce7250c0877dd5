// The video editor's actions, plain code (no React) on the store: listing,
// opening, creating, renaming and deleting workspaces; editing the timeline
// locally at once and saving it with workspace/edit after a quiet moment
// (the operations appended with operation/save once the edit is accepted);
// undo; the media bin (uploads, the user's finished videos, deletion); and
// export, polled every second until it ends.
import { isApiError } from '../api/client';
import type { ApiClient } from '../api/client';
import { errorMessage } from '../i18n/messages';
import type { ErrorMessage } from '../i18n/messages';
import type { AppStore } from '../state/jotai';
import { AUDIO_UPLOAD_CATEGORY, VIDEO_UPLOAD_CATEGORY } from './api';
import type { EditorApi, EditorWorkspace, ExportCheck, Material, MaterialSource, Timeline } from './api';
import {
  editorExportAtom,
  editorHistoryAtom,
  editorMaterialsAtom,
  editorMyVideosAtom,
  editorOpenAtom,
  editorProblemAtom,
  editorSaveAtom,
  editorSelectedAtom,
  editorUploadAtom,
  editorWorkspacesAtom,
} from './atoms';
import type { VideoTaskOutput } from './atoms';
import { pushHistory, pushPending, sameTimeline } from './timeline';
import type { EditOp } from './timeline';

/** Quiet time after the last change before it is saved. */
export const SAVE_DEBOUNCE_MS = 800;
/** Export progress is asked for this often (the brief: every second). */
export const EXPORT_POLL_MS = 1_000;
/** The server takes at most this many operations per operation/save. */
export const OPERATIONS_PER_SAVE = 50;
/** Materials and workspaces per page. */
export const EDITOR_PAGE_SIZE = 50;

/** Uploads a file by the pre-signed flow and answers its id (generator/upload.ts `uploadFileWithId`). */
export type Uploader = (file: Blob, fileName: string, category: number, onProgress: (fraction: number) => void) => Promise<{ file_id: string }>;

export interface Timers {
  set: (fn: () => void, ms: number) => unknown;
  clear: (handle: unknown) => void;
}

export interface EditorSessionOptions {
  store: AppStore;
  api: EditorApi;
  /** For the task list ("From my videos"). */
  tasks: Pick<ApiClient, 'post'>;
  upload: Uploader;
  timers?: Timers;
  /** Milliseconds since the epoch, stamped on each logged operation. */
  now?: () => number;
}

const defaultTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** A failure as a message: the envelope's key or text; anything else is a network failure. */
export function problemOf(e: unknown): ErrorMessage {
  if (!isApiError(e)) return { key: 'NetworkError' };
  const m = errorMessage(e);
  return 'key' in m && m.key === 'LoginFailed' && e.code !== 20000 ? { key: 'ServerError' } : m;
}

/** The outputs of finished video tasks in a task-list answer, newest first as listed. */
export function videoTaskOutputs(answer: unknown): VideoTaskOutput[] {
  const items = (typeof answer === 'object' && answer !== null ? (answer as { items?: unknown }).items : undefined) ?? [];
  if (!Array.isArray(items)) return [];
  const out: VideoTaskOutput[] = [];
  for (const raw of items) {
    if (typeof raw !== 'object' || raw === null) continue;
    const t = raw as Record<string, unknown>;
    const videos = Array.isArray(t.video_uris) ? t.video_uris : [];
    if (t.status !== 3 || typeof t.id !== 'string') continue;
    const posters = Array.isArray(t.img_uris) ? t.img_uris : [];
    videos.forEach((mp4, index) => {
      if (typeof mp4 !== 'string' || mp4 === '') return;
      const poster = posters[index];
      out.push({
        task_id: t.id as string,
        index,
        mp4,
        poster: typeof poster === 'string' && poster !== '' ? poster : null,
        prompt: typeof t.prompt === 'string' ? t.prompt : '',
        created_at: typeof t.create_at === 'number' ? t.create_at : 0,
      });
    });
  }
  return out;
}

/** The category a file uploads under: audio files as audio, everything else as video. */
export function uploadCategory(file: { type: string; name: string }): number {
  if (file.type.startsWith('audio/')) return AUDIO_UPLOAD_CATEGORY;
  if (file.type === '' && /\.(mp3|wav|m4a|aac|ogg|oga|flac|opus)$/i.test(file.name)) return AUDIO_UPLOAD_CATEGORY;
  return VIDEO_UPLOAD_CATEGORY;
}

export class EditorSession {
  private readonly store: AppStore;
  private readonly api: EditorApi;
  private readonly tasks: Pick<ApiClient, 'post'>;
  private readonly upload: Uploader;
  private readonly timers: Timers;
  private readonly now: () => number;
  private saveTimer: unknown = null;
  private saving: Promise<void> | null = null;
  /** Changes made since the last save started. */
  private dirty = false;
  private pending: EditOp[] = [];
  private pollTimer: unknown = null;
  /** Bumped on each open and export: an older poll's answer is dropped. */
  private exportGen = 0;
  private visits = 0;

  constructor(options: EditorSessionOptions) {
    this.store = options.store;
    this.api = options.api;
    this.tasks = options.tasks;
    this.upload = options.upload;
    this.timers = options.timers ?? defaultTimers;
    this.now = options.now ?? (() => Date.now());
  }

  private fail(e: unknown): void {
    this.store.set(editorProblemAtom, problemOf(e));
  }

  clearProblem(): void {
    this.store.set(editorProblemAtom, null);
  }

  // --- Workspaces -------------------------------------------------------

  /** Loads the list; opens `preferred` (or the newest) when none is open. */
  async loadWorkspaces(preferred: string | null = null): Promise<void> {
    this.store.set(editorWorkspacesAtom, { state: 'loading' });
    try {
      const { items } = await this.api.listWorkspaces(EDITOR_PAGE_SIZE);
      this.store.set(editorWorkspacesAtom, { state: 'ready', value: items });
      if (this.store.get(editorOpenAtom) !== null) return;
      const pick = items.find((w) => w.workspace_id === preferred) ?? items[0];
      if (pick !== undefined) await this.open(pick.workspace_id);
    } catch (e) {
      this.store.set(editorWorkspacesAtom, { state: 'error', message: problemOf(e) });
    }
  }

  private listed(): EditorWorkspace[] {
    const list = this.store.get(editorWorkspacesAtom);
    return list.state === 'ready' ? list.value : [];
  }

  /** Puts `w` first in the list (newest-updated first), replacing its old entry. */
  private upsert(w: EditorWorkspace): void {
    this.store.set(editorWorkspacesAtom, { state: 'ready', value: [w, ...this.listed().filter((x) => x.workspace_id !== w.workspace_id)] });
  }

  /** Opens a workspace (saving the open one first). */
  async open(workspaceId: string): Promise<void> {
    await this.flush();
    this.stopPolling();
    try {
      const w = await this.api.detail(workspaceId);
      this.show(w);
    } catch (e) {
      this.fail(e);
    }
  }

  private show(w: EditorWorkspace): void {
    this.pending = [];
    this.dirty = false;
    this.store.set(editorOpenAtom, { workspace: w, name: w.name, timeline: w.timeline });
    this.store.set(editorHistoryAtom, []);
    this.store.set(editorSaveAtom, 'saved');
    this.store.set(editorSelectedAtom, w.timeline.clips.length > 0 ? 0 : null);
    this.store.set(editorExportAtom, { state: 'idle' });
    this.store.set(editorProblemAtom, null);
    if (w.last_export !== null) void this.follow(w.last_export.task_id, ++this.exportGen, false);
  }

  async create(name?: string): Promise<void> {
    await this.flush();
    this.stopPolling();
    try {
      const w = await this.api.createWorkspace(name !== undefined && name.trim() !== '' ? { name: name.trim() } : {});
      this.upsert(w);
      this.show(w);
    } catch (e) {
      this.fail(e);
    }
  }

  /** Deletes a workspace; when it was open, the next one in the list opens. */
  async remove(workspaceId: string): Promise<void> {
    const open = this.store.get(editorOpenAtom);
    const wasOpen = open?.workspace.workspace_id === workspaceId;
    if (wasOpen) this.cancelSave();
    try {
      await this.api.deleteWorkspace(workspaceId);
    } catch (e) {
      this.fail(e);
      return;
    }
    const rest = this.listed().filter((w) => w.workspace_id !== workspaceId);
    this.store.set(editorWorkspacesAtom, { state: 'ready', value: rest });
    if (!wasOpen) return;
    this.stopPolling();
    this.store.set(editorOpenAtom, null);
    this.store.set(editorExportAtom, { state: 'idle' });
    const next = rest[0];
    if (next !== undefined) await this.open(next.workspace_id);
  }

  rename(name: string): void {
    const open = this.store.get(editorOpenAtom);
    if (open === null || open.name === name) return;
    this.store.set(editorOpenAtom, { ...open, name });
    this.pending = pushPending(this.pending, { op: 'rename', name });
    this.schedule();
  }

  // --- Editing ----------------------------------------------------------

  /**
   * Applies `change` to the timeline, logs `op` and schedules a save; no-op
   * changes are dropped. `drag`: from a handle or slider, so successive drags
   * of one value make one undo step.
   */
  edit(op: EditOp, change: (t: Timeline) => Timeline, drag = false): void {
    const open = this.store.get(editorOpenAtom);
    if (open === null) return;
    const next = change(open.timeline);
    if (sameTimeline(next, open.timeline)) return;
    this.store.set(editorHistoryAtom, pushHistory(this.store.get(editorHistoryAtom), op, open.timeline, drag));
    this.store.set(editorOpenAtom, { ...open, timeline: next });
    this.pending = pushPending(this.pending, op);
    this.schedule();
  }

  /** Restores the timeline from before the last operation (logged as an `undo`). */
  undo(): void {
    const open = this.store.get(editorOpenAtom);
    const history = this.store.get(editorHistoryAtom);
    const last = history[history.length - 1];
    if (open === null || last === undefined) return;
    this.store.set(editorHistoryAtom, history.slice(0, -1));
    this.store.set(editorOpenAtom, { ...open, timeline: last.before });
    const selected = this.store.get(editorSelectedAtom);
    if (selected !== null && selected >= last.before.clips.length) this.store.set(editorSelectedAtom, last.before.clips.length > 0 ? 0 : null);
    this.pending = [...this.pending, { op: 'undo', undone: last.op }];
    this.schedule();
  }

  private schedule(): void {
    this.dirty = true;
    this.store.set(editorSaveAtom, 'pending');
    if (this.saveTimer !== null) this.timers.clear(this.saveTimer);
    this.saveTimer = this.timers.set(() => {
      this.saveTimer = null;
      void this.save();
    }, SAVE_DEBOUNCE_MS);
  }

  private cancelSave(): void {
    if (this.saveTimer !== null) this.timers.clear(this.saveTimer);
    this.saveTimer = null;
    this.dirty = false;
    this.pending = [];
  }

  /** Saves now whatever is waiting; resolves once the server has it (or the save failed). */
  async flush(): Promise<void> {
    if (this.saveTimer !== null) {
      this.timers.clear(this.saveTimer);
      this.saveTimer = null;
    }
    if (this.saving !== null) await this.saving;
    if (this.dirty) await this.save();
  }

  private save(): Promise<void> {
    if (this.saving !== null) return this.saving.then(() => (this.dirty ? this.save() : undefined));
    this.saving = this.send().finally(() => {
      this.saving = null;
    });
    return this.saving;
  }

  private async send(): Promise<void> {
    const open = this.store.get(editorOpenAtom);
    if (open === null) return;
    const id = open.workspace.workspace_id;
    this.dirty = false;
    const ops = this.pending;
    this.pending = [];
    try {
      const saved = await this.api.editWorkspace(id, { name: open.name, timeline: open.timeline });
      this.upsert(saved);
      const now = this.store.get(editorOpenAtom);
      if (now?.workspace.workspace_id === id) this.store.set(editorOpenAtom, { ...now, workspace: saved });
      const at = this.now();
      for (let i = 0; i < ops.length; i += OPERATIONS_PER_SAVE) {
        await this.api.saveOperations(id, ops.slice(i, i + OPERATIONS_PER_SAVE).map((o) => ({ ...o, at })));
      }
      if (!this.dirty) this.store.set(editorSaveAtom, 'saved');
      this.store.set(editorProblemAtom, null);
    } catch (e) {
      // Kept for the next attempt, which the next change (or export) makes.
      this.pending = [...ops, ...this.pending];
      this.dirty = true;
      this.store.set(editorSaveAtom, 'error');
      this.fail(e);
    }
  }

  // --- Media bin ----------------------------------------------------------

  async loadMaterials(more = false): Promise<void> {
    const current = this.store.get(editorMaterialsAtom);
    const before = current.state === 'ready' ? current.value : { items: [], cursor: null };
    if (more && before.cursor === null) return;
    if (!more) this.store.set(editorMaterialsAtom, { state: 'loading' });
    try {
      const page = await this.api.listMaterials(EDITOR_PAGE_SIZE, more ? before.cursor : null);
      const items = more ? [...before.items, ...page.items.filter((m) => !before.items.some((x) => x.material_id === m.material_id))] : page.items;
      this.store.set(editorMaterialsAtom, { state: 'ready', value: { items, cursor: page.next_cursor } });
    } catch (e) {
      if (more) this.fail(e);
      else this.store.set(editorMaterialsAtom, { state: 'error', message: problemOf(e) });
    }
  }

  private addToBin(m: Material): void {
    const current = this.store.get(editorMaterialsAtom);
    const before = current.state === 'ready' ? current.value : { items: [], cursor: null };
    this.store.set(editorMaterialsAtom, {
      state: 'ready',
      value: { items: [m, ...before.items.filter((x) => x.material_id !== m.material_id)], cursor: before.cursor },
    });
  }

  /** Adds a material from a file or a task output; answers it, or null on failure (the problem is shown). */
  async addMaterial(source: MaterialSource): Promise<Material | null> {
    this.clearProblem();
    try {
      const m = await this.api.addMaterial(source);
      this.addToBin(m);
      return m;
    } catch (e) {
      this.fail(e);
      return null;
    }
  }

  /** Uploads a video or audio file into the bin. */
  async uploadMaterial(file: File): Promise<Material | null> {
    if (this.store.get(editorUploadAtom) !== null) return null;
    this.clearProblem();
    this.store.set(editorUploadAtom, { name: file.name, fraction: 0 });
    try {
      const { file_id } = await this.upload(file, file.name, uploadCategory(file), (fraction) =>
        this.store.set(editorUploadAtom, { name: file.name, fraction: Math.min(fraction, 0.99) }),
      );
      return await this.addMaterial({ file_id });
    } catch (e) {
      this.store.set(editorProblemAtom, isApiError(e) ? problemOf(e) : { key: 'editor.uploadFailed' });
      return null;
    } finally {
      this.store.set(editorUploadAtom, null);
    }
  }

  async deleteMaterial(materialId: string): Promise<void> {
    this.clearProblem();
    try {
      await this.api.deleteMaterial(materialId);
    } catch (e) {
      this.fail(e);
      return;
    }
    const current = this.store.get(editorMaterialsAtom);
    if (current.state !== 'ready') return;
    this.store.set(editorMaterialsAtom, {
      state: 'ready',
      value: { ...current.value, items: current.value.items.filter((m) => m.material_id !== materialId) },
    });
  }

  /** The user's finished video tasks (one entry per output). */
  async loadMyVideos(): Promise<void> {
    this.store.set(editorMyVideosAtom, { state: 'loading' });
    try {
      const answer = await this.tasks.post<unknown>('/api/v1/task/list', { limit: EDITOR_PAGE_SIZE });
      this.store.set(editorMyVideosAtom, { state: 'ready', value: videoTaskOutputs(answer) });
    } catch (e) {
      this.store.set(editorMyVideosAtom, { state: 'error', message: problemOf(e) });
    }
  }

  // --- Export -------------------------------------------------------------

  /** Saves, starts the export and follows it until it ends. */
  async exportOpen(): Promise<void> {
    const open = this.store.get(editorOpenAtom);
    if (open === null) return;
    const state = this.store.get(editorExportAtom).state;
    if (state === 'starting' || state === 'running') return;
    this.stopPolling();
    const gen = ++this.exportGen;
    this.clearProblem();
    this.store.set(editorExportAtom, { state: 'starting' });
    await this.flush();
    if (this.store.get(editorSaveAtom) === 'error') {
      const message = this.store.get(editorProblemAtom) ?? { key: 'ServerError' };
      this.store.set(editorExportAtom, { state: 'failed', check: null, message });
      return;
    }
    let taskId: string;
    try {
      taskId = await this.api.exportWorkspace(open.workspace.workspace_id);
    } catch (e) {
      if (gen === this.exportGen) this.store.set(editorExportAtom, { state: 'failed', check: null, message: problemOf(e) });
      return;
    }
    if (gen !== this.exportGen) return;
    const check: ExportCheck = { task_id: taskId, status: 'queued', progress: 0, video_url: null, poster_url: null, error: null };
    this.store.set(editorExportAtom, { state: 'running', check });
    const now = this.store.get(editorOpenAtom);
    if (now?.workspace.workspace_id === open.workspace.workspace_id) {
      this.store.set(editorOpenAtom, { ...now, workspace: { ...now.workspace, last_export: { task_id: taskId } } });
    }
    await this.follow(taskId, gen, true);
  }

  /** Checks an export; keeps polling while it runs. `shout`: a failed check is shown (else, for an old export, ignored). */
  private async follow(taskId: string, gen: number, shout: boolean): Promise<void> {
    let check: ExportCheck;
    try {
      check = await this.api.checkExport(taskId);
    } catch (e) {
      if (gen !== this.exportGen) return;
      if (shout) this.store.set(editorExportAtom, { state: 'failed', check: null, message: problemOf(e) });
      return;
    }
    if (gen !== this.exportGen) return;
    if (check.status === 'succeeded' && check.video_url !== null) {
      this.store.set(editorExportAtom, { state: 'succeeded', check });
    } else if (check.status === 'failed' || check.status === 'cancelled' || check.status === 'succeeded') {
      const message: ErrorMessage = check.error !== null ? { text: check.error } : { key: check.status === 'cancelled' ? 'editor.exportCancelled' : 'editor.exportFailed' };
      this.store.set(editorExportAtom, { state: 'failed', check, message });
    } else {
      this.store.set(editorExportAtom, { state: 'running', check });
      this.pollTimer = this.timers.set(() => {
        this.pollTimer = null;
        void this.follow(taskId, gen, true);
      }, EXPORT_POLL_MS);
    }
  }

  private stopPolling(): void {
    this.exportGen += 1;
    if (this.pollTimer !== null) this.timers.clear(this.pollTimer);
    this.pollTimer = null;
  }

  /** The page opened: answers the visit's number for {@link close}. */
  enter(): number {
    this.visits += 1;
    return this.visits;
  }

  /**
   * The page left: saves what waits, stops polling and closes the workspace
   * (the next visit opens it again), unless a newer visit began meanwhile.
   */
  async close(visit: number): Promise<void> {
    this.stopPolling();
    await this.flush();
    if (visit !== this.visits) return;
    this.store.set(editorOpenAtom, null);
    this.store.set(editorExportAtom, { state: 'idle' });
  }
}
