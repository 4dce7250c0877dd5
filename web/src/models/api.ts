// Shared models (issue 19, spec 3 §7 Models, Model ranking, Training): the
// wire types (mirror protocol/src/models/model.rs: ModelView, VersionView,
// ModelFileView), every path the model pages call, and thin calls on the
// app's API client. Answers whose shape the spec leaves open (lists, the
// picker, earnings, boards) are read leniently by `listOf`.
import { storedVisitorNsfwMode } from '../square/atoms';
import type { ApiClient } from '../api/client';
import type { Card, FeedPage } from '../square/types';

export type ModelType = 'checkpoint' | 'lora' | 'embedding';
export const MODEL_TYPES: readonly ModelType[] = ['checkpoint', 'lora', 'embedding'];
/** Spec 3 §3 publish_status: 0 draft, 1 published, 2 delisted. */
export const PublishStatus = { Draft: 0, Published: 1, Delisted: 2 } as const;
/** Spec 3 §3 status: 0 pending (checking or training), 1 ready, 2 failed. */
export const VersionStatus = { Pending: 0, Ready: 1, Failed: 2 } as const;

export interface ModelFileView {
  name: string;
  size: number;
  format: string;
  sha256: string;
  autov2: string;
  autov3?: string;
  detected_type: ModelType | null;
  detected_family: string | null;
  rank?: number | null;
  alpha?: number | null;
  tensor_count: number;
  download_url?: string | null;
}

export interface VersionView {
  model_ver_no: string;
  model_id: string;
  version_name: string;
  model_type: ModelType;
  base_model: string;
  base_model_name: string;
  description: string;
  trained_words: string[];
  status: number;
  status_msg?: string;
  publish_status: number;
  source: 'upload' | 'import' | 'train';
  file: ModelFileView | null;
  images: string[];
  banner: string | null;
  weight: number;
  create_at: number;
}

export interface ModelStats {
  uses: number;
  downloads: number;
  likes: number;
  collects: number;
  earnings: number;
  /** Comments on the model, replies included. */
  comments: number;
}

export interface ModelView {
  model_id: string;
  name: string;
  model_type: ModelType;
  base_model: string;
  base_model_name: string;
  description: string;
  tags: string[];
  owner: { id: string; name: string; avatar?: string | null };
  is_mine: boolean;
  publish_status: number;
  nsfw: boolean;
  allow_download: boolean;
  is_agency_fee: boolean;
  agency_fee: number;
  cover: string | null;
  versions: VersionView[];
  stats: ModelStats;
  create_at: number;
  update_at: number;
}

/** What a model file's last confirmation answers (the server read the file). */
export interface ConfirmedModelFile {
  file_id: string;
  size: number;
  sha256: string;
  autov2: string;
  autov3?: string | undefined;
  detected_type: ModelType | null;
  detected_family: string | null;
  rank?: number | null;
  alpha?: number | null;
  tensor_count?: number | undefined;
  trained_words?: string[];
}

export interface CreateModelAnswer {
  model_id: string;
  model_ver_no: string;
  sha256: string;
  autov2: string;
}

/** Every call the model pages make. */
export const MODEL_PATHS = {
  preSign: '/api/v1/resource/pre-sign/get',
  confirm: '/api/v1/resource/pre-sign/confirm',
  confirmPart: '/api/v1/resource/pre-sign/confirmPart',
  createModel: '/api/v1/resource/createModel',
  commitModel: '/api/v1/resource/commitModel',
  delModel: '/api/v1/resource/delModel',
  publish: '/api/v1/resource/publish',
  detail: '/api/v1/model/detail',
  detailWithVer: '/api/v1/model/detail-with-ver',
  list: '/api/v1/model/list',
  edit: '/api/v1/model/edit',
  verEdit: '/api/v1/model/ver/edit',
  delist: '/api/v1/model/delist',
  canDel: '/api/v1/model/ver/can-del',
  configSelect: '/api/v1/model/config-select',
  feed: '/api/v1/square/v3/model/list',
  community: '/api/v1/square/my-artwork/community',
  earnings: '/api/v1/model/leaderboard/creator-earnings',
  like: '/api/v1/model/like',
  collect: '/api/v1/model/collect',
  rankIndex: '/api/v1/model/rank-index',
  rankDetail: '/api/v1/model/rank-detail',
  datasetList: '/api/v1/dataset/list',
  datasetDetail: '/api/v1/dataset/detail',
  datasetCreate: '/api/v1/dataset/create',
  datasetDelete: '/api/v1/dataset/delete',
  datasetEdit: '/api/v1/dataset/edit',
  datasetTemplates: '/api/v1/dataset/template-list',
  datasetImageAdd: '/api/v1/dataset/image/add',
  datasetImageDelete: '/api/v1/dataset/image/delete',
  datasetCaption: '/api/v1/dataset/image/caption',
  datasetAutoCaption: '/api/v1/dataset/caption/auto',
  trainCreate: '/api/v1/train-model/create',
  trainEstimate: '/api/v1/train-model/estimate',
  trainInProgress: '/api/v1/train-model/in-progress-list',
  trainProgress: '/api/v1/train-model/batch-progress',
  trainLog: '/api/v1/train-model/log',
} as const;

type Post = Pick<ApiClient, 'post'>;

/** The items of a list answer: an array, or `{items | list | records: [...]}`; anything else is empty. */
export function listOf<T>(data: unknown): T[] {
  if (Array.isArray(data)) return data as T[];
  if (typeof data === 'object' && data !== null) {
    const d = data as Record<string, unknown>;
    for (const k of ['items', 'list', 'records', 'entries']) if (Array.isArray(d[k])) return d[k] as T[];
  }
  return [];
}

/** The `next_cursor` of a paged answer, or null. */
export function cursorOf(data: unknown): string | null {
  if (typeof data !== 'object' || data === null) return null;
  const c = (data as { next_cursor?: unknown }).next_cursor;
  return typeof c === 'string' && c !== '' ? c : null;
}

export function modelDetail(api: Post, modelId: string): Promise<ModelView> {
  return api.post<ModelView>(MODEL_PATHS.detail, { model_id: modelId });
}

export async function myModels(api: Post, cursor: string | null): Promise<{ items: ModelView[]; next_cursor: string | null }> {
  const d = await api.post<unknown>(MODEL_PATHS.list, cursor ? { cursor, page_size: 24 } : { page_size: 24 });
  return { items: listOf<ModelView>(d), next_cursor: cursorOf(d) };
}

export function createModel(api: Post, body: { file_id: string; name: string; model_type: ModelType; base_model: string; sha256?: string; model_id?: string; version_name?: string; description?: string }): Promise<CreateModelAnswer> {
  return api.post<CreateModelAnswer>(MODEL_PATHS.createModel, body);
}

export function commitModel(api: Post, body: Record<string, unknown>): Promise<unknown> {
  return api.post<unknown>(MODEL_PATHS.commitModel, body);
}

export function publishModel(api: Post, modelId: string, verNos: string[]): Promise<unknown> {
  return api.post<unknown>(MODEL_PATHS.publish, { model_id: modelId, model_ver_nos: verNos });
}

export function delistModel(api: Post, modelId: string): Promise<unknown> {
  return api.post<unknown>(MODEL_PATHS.delist, { model_id: modelId });
}

export function deleteModel(api: Post, modelId: string): Promise<unknown> {
  return api.post<unknown>(MODEL_PATHS.delModel, { model_id: modelId });
}

export interface CanDelete {
  can_delete: boolean;
  reason?: string | null;
}

export function canDeleteVersion(api: Post, verNo: string): Promise<CanDelete> {
  return api.post<CanDelete>(MODEL_PATHS.canDel, { model_ver_no: verNo });
}

/** The square's model feed (cards of obj_type 2) with spec 3 §3's filter names. */
export async function modelFeed(api: Post, body: Record<string, unknown>): Promise<FeedPage> {
  const d = await api.post<unknown>(MODEL_PATHS.feed, body);
  return { items: listOf<Card>(d), next_cursor: cursorOf(d) };
}

/** Spec 1 §3: comments on a model are on obj_type 2. */
export const MODEL_OBJ_TYPE = 2;

/** A model's community gallery (`square/my-artwork/community` with a model): published works made with it (with `verNo` when given), newest first. */
export async function modelWorks(api: Post, modelId: string, verNo: string | null, cursor: string | null): Promise<FeedPage> {
  const body: Record<string, unknown> = { model_id: modelId, page_size: 20, nsfw_mode: storedVisitorNsfwMode() };
  if (verNo) body.model_ver_no = verNo;
  if (cursor) body.cursor = cursor;
  const d = await api.post<unknown>(MODEL_PATHS.community, body);
  return { items: listOf<Card>(d), next_cursor: cursorOf(d) };
}

/** One entry of the generator's picker (spec 3 §3 "Lora and embedding entries", plus a checkpoint's family). */
export interface PickerEntry {
  model_id: string;
  model_ver_no: string;
  model_type: ModelType;
  name: string;
  version_name?: string;
  base_model: string;
  weight?: number;
  trained_words?: string[];
  banner?: string | null;
}

/**
 * The picker's models (published ones and the caller's own ready versions):
 * entries, or models with their versions (flattened to their ready versions).
 */
export function pickerEntries(data: unknown): PickerEntry[] {
  const out: PickerEntry[] = [];
  for (const raw of listOf<Record<string, unknown>>(data)) {
    if (Array.isArray(raw.versions)) {
      const m = raw as unknown as ModelView;
      for (const v of m.versions) {
        if (v.status !== VersionStatus.Ready) continue;
        out.push({ model_id: m.model_id, model_ver_no: v.model_ver_no, model_type: v.model_type ?? m.model_type, name: m.name, version_name: v.version_name, base_model: v.base_model || m.base_model, weight: v.weight, trained_words: v.trained_words, banner: v.banner });
      }
    } else if (typeof raw.model_ver_no === 'string' && typeof raw.model_id === 'string') {
      const e = raw as unknown as PickerEntry;
      if (typeof (raw as { status?: unknown }).status === 'number' && (raw as { status: number }).status !== VersionStatus.Ready) continue;
      out.push({ ...e, model_type: e.model_type ?? 'lora' });
    }
  }
  return out;
}

export async function configSelect(api: Post): Promise<PickerEntry[]> {
  return pickerEntries(await api.post<unknown>(MODEL_PATHS.configSelect, { page_size: 100 }));
}

/** The caller's earnings as a creator (`model/leaderboard/creator-earnings`). */
export interface EarningEntry {
  model_id: string;
  model_ver_no?: string;
  model_name?: string;
  credits: number;
  task_id?: string;
  at?: number;
}

export interface Earnings {
  total: number;
  byModel: { model_id: string; name: string; credits: number; uses: number }[];
  recent: EarningEntry[];
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

export function readEarnings(data: unknown): Earnings {
  const d = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  const byModel = listOf<Record<string, unknown>>(d.by_model).map((m) => ({
    model_id: String(m.model_id ?? ''),
    name: String(m.name ?? m.model_name ?? m.model_id ?? ''),
    credits: num(m.credits ?? m.earnings),
    uses: num(m.uses),
  }));
  // Entries name the version as `ver_no` (backend/src/models/uses.rs); the model's name comes from by_model.
  const recent = listOf<EarningEntry & { ver_no?: string }>(d.recent ?? d.items).map(({ ver_no, ...e }) => {
    const verNo = e.model_ver_no ?? ver_no;
    const name = e.model_name ?? byModel.find((m) => m.model_id === e.model_id)?.name;
    return { ...e, credits: num(e.credits), ...(verNo !== undefined ? { model_ver_no: verNo } : {}), ...(name !== undefined ? { model_name: name } : {}) };
  });
  return { total: num(d.total ?? d.total_credits), byModel, recent };
}

export async function creatorEarnings(api: Post): Promise<Earnings> {
  return readEarnings(await api.post<unknown>(MODEL_PATHS.earnings, {}));
}

/** What `model/like` and `model/collect` answer. */
export interface Reaction {
  model_id: string;
  liked: boolean;
  collected: boolean;
  likes: number;
  collects: number;
}

/** Likes or collects a model (`cancel` takes it back). */
export function react(api: Post, kind: 'like' | 'collect', modelId: string, cancel: boolean): Promise<Reaction> {
  return api.post<Reaction>(kind === 'like' ? MODEL_PATHS.like : MODEL_PATHS.collect, { model_id: modelId, cancel });
}
