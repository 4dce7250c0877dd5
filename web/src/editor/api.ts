// The video editor's wire types and calls (/work EDITOR_API, spec 2 §7 "Video
// editor"): workspaces, their operation log, materials, export and its check.
// Every call is a POST under EDITOR_BASE answering the `{status, data}`
// envelope; answers are read tolerantly (a missing list is empty, a missing
// number 0) so the screen never breaks on an older server.
import type { ApiClient } from '../api/client';

export const EDITOR_BASE = '/api/v1/task/v2/video/editor';

export const EDITOR_PATHS = {
  workspaceCreate: `${EDITOR_BASE}/workspace/create`,
  workspaceEdit: `${EDITOR_BASE}/workspace/edit`,
  workspaceList: `${EDITOR_BASE}/workspace/list`,
  workspaceDel: `${EDITOR_BASE}/workspace/del`,
  detail: `${EDITOR_BASE}/detail`,
  operationSave: `${EDITOR_BASE}/operation/save`,
  materialList: `${EDITOR_BASE}/material/list`,
  materialUpload: `${EDITOR_BASE}/material/upload`,
  materialDelete: `${EDITOR_BASE}/material/delete`,
  export: `${EDITOR_BASE}/export`,
  exportCheck: `${EDITOR_BASE}/export/check`,
} as const;

/** Upload categories of the pre-signed flow: video and audio files. */
export const VIDEO_UPLOAD_CATEGORY = 8;
export const AUDIO_UPLOAD_CATEGORY = 59;

export type MaterialKind = 'video' | 'audio';

export interface Material {
  material_id: string;
  kind: MaterialKind;
  name: string;
  url: string;
  /** Null for audio. */
  poster_url: string | null;
  /** Seconds. */
  duration: number;
  width: number;
  height: number;
  has_audio: boolean;
  source: 'upload' | 'task';
  created_at: number;
}

/** A trim window inside a material, in seconds: 0 <= start < end <= duration. */
export interface Clip {
  material_id: string;
  start: number;
  end: number;
}

/** The music track: `start` is the offset inside its material; volume 0..=2 (1 = as is). */
export interface Music {
  material_id: string;
  start: number;
  volume: number;
}

export interface Timeline {
  clips: Clip[];
  music: Music | null;
}

export interface EditorWorkspace {
  workspace_id: string;
  name: string;
  width: number;
  height: number;
  fps: number;
  timeline: Timeline;
  /** Sum of the clips' lengths, seconds. */
  duration: number;
  operations: unknown[];
  last_export: { task_id: string } | null;
  created_at: number;
  updated_at: number;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export type ExportStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface ExportCheck {
  task_id: string;
  status: ExportStatus;
  /** 0..100. */
  progress: number;
  video_url: string | null;
  poster_url: string | null;
  error: string | null;
}

export interface WorkspaceChange {
  name?: string;
  timeline?: Timeline;
  width?: number;
  height?: number;
}

/** Where a material comes from: an uploaded file, or one output of a finished video task. */
export type MaterialSource = { file_id: string } | { task_id: string; index?: number };

type Poster = Pick<ApiClient, 'post'>;

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
}

function num(v: unknown, fallback = 0): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function strOrNull(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

function asClip(v: unknown): Clip {
  const c = record(v);
  return { material_id: str(c.material_id), start: num(c.start), end: num(c.end) };
}

export function asTimeline(v: unknown): Timeline {
  const t = record(v);
  const clips = Array.isArray(t.clips) ? t.clips.map(asClip) : [];
  const m = t.music === null || t.music === undefined ? null : record(t.music);
  const music = m === null || str(m.material_id) === '' ? null : { material_id: str(m.material_id), start: num(m.start), volume: num(m.volume, 1) };
  return { clips, music };
}

export function asWorkspace(v: unknown): EditorWorkspace {
  const w = record(v);
  const last = record(w.last_export);
  return {
    workspace_id: str(w.workspace_id),
    name: str(w.name),
    width: num(w.width, 1280),
    height: num(w.height, 720),
    fps: num(w.fps, 24),
    timeline: asTimeline(w.timeline),
    duration: num(w.duration),
    operations: Array.isArray(w.operations) ? w.operations : [],
    last_export: str(last.task_id) !== '' ? { task_id: str(last.task_id) } : null,
    created_at: num(w.created_at),
    updated_at: num(w.updated_at),
  };
}

export function asMaterial(v: unknown): Material {
  const m = record(v);
  return {
    material_id: str(m.material_id),
    kind: m.kind === 'audio' ? 'audio' : 'video',
    name: str(m.name),
    url: str(m.url),
    poster_url: strOrNull(m.poster_url),
    duration: num(m.duration),
    width: num(m.width),
    height: num(m.height),
    has_audio: m.has_audio === true,
    source: m.source === 'task' ? 'task' : 'upload',
    created_at: num(m.created_at),
  };
}

const STATUSES: readonly ExportStatus[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

export function asExportCheck(v: unknown): ExportCheck {
  const c = record(v);
  const status = STATUSES.find((s) => s === c.status) ?? 'queued';
  return {
    task_id: str(c.task_id),
    status,
    progress: Math.max(0, Math.min(100, num(c.progress))),
    video_url: strOrNull(c.video_url),
    poster_url: strOrNull(c.poster_url),
    error: strOrNull(c.error),
  };
}

function page<T>(v: unknown, item: (x: unknown) => T): Page<T> {
  const p = record(v);
  return { items: Array.isArray(p.items) ? p.items.map(item) : [], next_cursor: strOrNull(p.next_cursor) };
}

/** The editor's calls on the app's API client (tests pass a mock `post`). */
export class EditorApi {
  constructor(private readonly api: Poster) {}

  async createWorkspace(req: { name?: string; width?: number; height?: number } = {}): Promise<EditorWorkspace> {
    return asWorkspace(await this.api.post<unknown>(EDITOR_PATHS.workspaceCreate, req));
  }

  async editWorkspace(workspaceId: string, change: WorkspaceChange): Promise<EditorWorkspace> {
    return asWorkspace(await this.api.post<unknown>(EDITOR_PATHS.workspaceEdit, { workspace_id: workspaceId, ...change }));
  }

  async listWorkspaces(pageSize = 50, cursor: string | null = null): Promise<Page<EditorWorkspace>> {
    const body = cursor === null ? { page_size: pageSize } : { page_size: pageSize, cursor };
    return page(await this.api.post<unknown>(EDITOR_PATHS.workspaceList, body), asWorkspace);
  }

  async deleteWorkspace(workspaceId: string): Promise<void> {
    await this.api.post<unknown>(EDITOR_PATHS.workspaceDel, { workspace_id: workspaceId });
  }

  async detail(workspaceId: string): Promise<EditorWorkspace> {
    return asWorkspace(await this.api.post<unknown>(EDITOR_PATHS.detail, { workspace_id: workspaceId }));
  }

  /** Appends operations to the workspace's log; answers the log's length. */
  async saveOperations(workspaceId: string, operations: unknown[]): Promise<number> {
    const answer = record(await this.api.post<unknown>(EDITOR_PATHS.operationSave, { workspace_id: workspaceId, operations }));
    return num(answer.count);
  }

  async listMaterials(pageSize = 50, cursor: string | null = null, kind?: MaterialKind): Promise<Page<Material>> {
    const body: Record<string, unknown> = { page_size: pageSize };
    if (cursor !== null) body.cursor = cursor;
    if (kind !== undefined) body.kind = kind;
    return page(await this.api.post<unknown>(EDITOR_PATHS.materialList, body), asMaterial);
  }

  async addMaterial(source: MaterialSource): Promise<Material> {
    return asMaterial(await this.api.post<unknown>(EDITOR_PATHS.materialUpload, source));
  }

  async deleteMaterial(materialId: string): Promise<void> {
    await this.api.post<unknown>(EDITOR_PATHS.materialDelete, { material_id: materialId });
  }

  /** Starts rendering the workspace; answers the export task's id. */
  async exportWorkspace(workspaceId: string): Promise<string> {
    return str(record(await this.api.post<unknown>(EDITOR_PATHS.export, { workspace_id: workspaceId })).task_id);
  }

  async checkExport(taskId: string): Promise<ExportCheck> {
    return asExportCheck(await this.api.post<unknown>(EDITOR_PATHS.exportCheck, { task_id: taskId }));
  }
}
