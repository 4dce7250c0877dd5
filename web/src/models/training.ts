// Datasets and LoRA training (issue 19 item 4; wire types mirror
// protocol/src/models/train.rs): dataset views and calls, the training form
// with the kind's suggested parameters, its body, the step count (the
// server's `total_steps`), and reading the estimate, progress and log
// answers.
import type { ApiClient } from '../api/client';
import { listOf, MODEL_PATHS } from './api';

type Post = Pick<ApiClient, 'post'>;

export const DATASET_KINDS = ['character', 'style', 'concept', 'object'] as const;
export type DatasetKind = (typeof DATASET_KINDS)[number];
export const RESOLUTIONS = [512, 768, 1024] as const;
export const OPTIMIZERS = ['AdamW8bit', 'AdamW', 'Prodigy', 'Lion'] as const;
export const MAX_DATASET_IMAGES = 200;
export const MAX_CAPTION_CHARS = 1000;
export const MAX_STEPS = 20_000;

export interface DatasetImage {
  image_id: string;
  url: string;
  width: number;
  height: number;
  caption: string;
  caption_source: 'none' | 'descriptor' | 'llm' | 'user';
}

export interface Dataset {
  dataset_id: string;
  name: string;
  kind: DatasetKind;
  tags: string[];
  image_count: number;
  cover: string | null;
  images: DatasetImage[];
  create_at: number;
  update_at: number;
}

export interface DatasetTemplate {
  kind: DatasetKind;
  name: string;
  caption_convention: string;
  example_caption: string;
  suggested: { repeats: number; epochs: number; network_dim: number; network_alpha: number; learning_rate: number; min_images: number; max_images: number };
}

export interface TrainForm {
  dataset_id: string;
  model_id: string;
  name: string;
  base_model: string;
  epochs: number;
  repeats: number;
  resolution: number;
  network_dim: number;
  network_alpha: number;
  learning_rate: number;
  batch_size: number;
  optimizer: string;
  trigger_word: string;
}

export const EMPTY_TRAIN: TrainForm = {
  dataset_id: '',
  model_id: '',
  name: '',
  base_model: 'sd',
  epochs: 10,
  repeats: 5,
  resolution: 512,
  network_dim: 16,
  network_alpha: 8,
  learning_rate: 1e-4,
  batch_size: 1,
  optimizer: 'AdamW8bit',
  trigger_word: '',
};

/** The form with a template's suggestions (the dataset and names kept). */
export function withTemplate(f: TrainForm, t: DatasetTemplate | undefined): TrainForm {
  if (!t) return f;
  const s = t.suggested;
  return { ...f, epochs: s.epochs, repeats: s.repeats, network_dim: s.network_dim, network_alpha: s.network_alpha, learning_rate: s.learning_rate };
}

/** The family's training resolution (the server's `default_resolution`). */
export function defaultResolution(family: string): number {
  return family === 'sd' ? 512 : 1024;
}

/** Optimiser steps for `images` pictures: ceil(images × repeats / batch) × epochs. */
export function totalSteps(images: number, f: Pick<TrainForm, 'repeats' | 'batch_size' | 'epochs'>): number {
  return Math.ceil((images * f.repeats) / Math.max(1, f.batch_size)) * f.epochs;
}

/** A trigger word made from a name (`My Red Style` -> `my_red_style`), as the server does. */
export function triggerFromName(name: string): string {
  const out = name
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40);
  return out === '' ? 'easel_style' : out;
}

/** The first problem the server would name (`trainParamsInvalid`), as a short English reason, or null. */
export function trainProblem(f: TrainForm, images: number): string | null {
  if (f.dataset_id === '') return 'dataset';
  if (f.model_id === '' && f.name.trim() === '') return 'name';
  const int = (v: number, lo: number, hi: number) => Number.isInteger(v) && v >= lo && v <= hi;
  if (!int(f.epochs, 1, 100)) return 'epochs';
  if (!int(f.repeats, 1, 100)) return 'repeats';
  if (!(RESOLUTIONS as readonly number[]).includes(f.resolution)) return 'resolution';
  if (!int(f.network_dim, 1, 128)) return 'network_dim';
  if (!(f.network_alpha > 0 && f.network_alpha <= f.network_dim)) return 'network_alpha';
  if (!(f.learning_rate > 0 && f.learning_rate <= 0.01)) return 'learning_rate';
  if (!int(f.batch_size, 1, 8)) return 'batch_size';
  if (/[,()[\]<>:\n]/.test(f.trigger_word) || f.trigger_word.length > 40) return 'trigger_word';
  if (totalSteps(images, f) > MAX_STEPS) return 'steps';
  return null;
}

/** `train-model/create` and `estimate`'s body. */
export function trainBody(f: TrainForm): Record<string, unknown> {
  const params = {
    epochs: f.epochs,
    repeats: f.repeats,
    resolution: f.resolution,
    network_dim: f.network_dim,
    network_alpha: f.network_alpha,
    learning_rate: f.learning_rate,
    batch_size: f.batch_size,
    optimizer: f.optimizer,
    ...(f.trigger_word.trim() !== '' ? { trigger_word: f.trigger_word.trim() } : {}),
  };
  return f.model_id !== '' ? { dataset_id: f.dataset_id, model_id: f.model_id, base_model: f.base_model, params } : { dataset_id: f.dataset_id, name: f.name.trim(), base_model: f.base_model, params };
}

export interface Estimate {
  credits: number;
  steps: number | null;
  seconds: number | null;
}

function numOr(v: unknown, fallback: number | null): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

export function readEstimate(d: unknown): Estimate {
  const o = (typeof d === 'object' && d !== null ? d : {}) as Record<string, unknown>;
  return { credits: numOr(o.credits ?? o.cost ?? o.total_cost, 0) ?? 0, steps: numOr(o.steps ?? o.total_steps, null), seconds: numOr(o.estimate_secs ?? o.seconds, null) };
}

/** One training's progress (`batch-progress`, `in-progress-list`). */
export interface TrainState {
  task_id: string;
  status: number;
  percent: number;
  model_id: string | null;
  model_ver_no: string | null;
  name: string;
  reason: string | null;
}

/** Task status (spec 1 §4): 1 queued, 2 running, 3 success, 4 failed or ended (cancelled). */
export const TaskStatus = { Queued: 1, Running: 2, Done: 3, Ended: 4 } as const;

export function readTrainStates(d: unknown): TrainState[] {
  return listOf<Record<string, unknown>>(d).map((o) => {
    const p = numOr(o.percent ?? o.progress ?? o.process, 0) ?? 0;
    return {
      task_id: String(o.task_id ?? o.id ?? ''),
      status: numOr(o.status, 1) ?? 1,
      // A fraction (0..1) or a percent (0..100).
      percent: Math.round(p <= 1 && p > 0 && !Number.isInteger(p) ? p * 100 : p),
      model_id: typeof o.model_id === 'string' ? o.model_id : null,
      model_ver_no: typeof o.model_ver_no === 'string' ? o.model_ver_no : null,
      name: String(o.name ?? o.model_name ?? ''),
      reason: typeof o.reason === 'string' && o.reason !== '' ? o.reason : typeof o.status_msg === 'string' && o.status_msg !== '' ? o.status_msg : null,
    };
  });
}

export function isFinished(s: TrainState): boolean {
  return s.status === TaskStatus.Done || s.status === TaskStatus.Ended;
}

export function readLog(d: unknown): string[] {
  if (typeof d === 'object' && d !== null) {
    const o = d as Record<string, unknown>;
    const lines = o.lines ?? o.log;
    if (Array.isArray(lines)) return lines.map(String);
    if (typeof lines === 'string') return lines.split('\n');
  }
  return [];
}

export const datasets = {
  list: async (api: Post): Promise<Dataset[]> => listOf<Dataset>(await api.post<unknown>(MODEL_PATHS.datasetList, {})),
  detail: (api: Post, id: string) => api.post<Dataset>(MODEL_PATHS.datasetDetail, { dataset_id: id }),
  create: (api: Post, body: { name: string; kind: DatasetKind; tags: string[] }) => api.post<Dataset>(MODEL_PATHS.datasetCreate, body),
  remove: (api: Post, id: string) => api.post<unknown>(MODEL_PATHS.datasetDelete, { dataset_id: id }),
  edit: (api: Post, body: { dataset_id: string; name?: string; kind?: DatasetKind; tags?: string[] }) => api.post<Dataset>(MODEL_PATHS.datasetEdit, body),
  templates: async (api: Post): Promise<DatasetTemplate[]> => listOf<DatasetTemplate>(await api.post<unknown>(MODEL_PATHS.datasetTemplates, {})),
  /** Uploaded pictures by URL; the server checks them and drafts their captions. */
  addImages: (api: Post, id: string, urls: string[]) => api.post<Dataset>(MODEL_PATHS.datasetImageAdd, { dataset_id: id, urls }),
  removeImage: (api: Post, id: string, imageId: string) => api.post<unknown>(MODEL_PATHS.datasetImageDelete, { dataset_id: id, image_ids: [imageId] }),
  caption: (api: Post, id: string, imageId: string, caption: string) => api.post<unknown>(MODEL_PATHS.datasetCaption, { dataset_id: id, image_id: imageId, caption }),
  autoCaption: (api: Post, id: string, imageIds: string[] | null) => api.post<unknown>(MODEL_PATHS.datasetAutoCaption, imageIds ? { dataset_id: id, image_ids: imageIds } : { dataset_id: id }),
};

export const training = {
  estimate: async (api: Post, f: TrainForm): Promise<Estimate> => readEstimate(await api.post<unknown>(MODEL_PATHS.trainEstimate, trainBody(f))),
  create: (api: Post, f: TrainForm) => api.post<{ task_id: string; model_id: string; model_ver_no: string }>(MODEL_PATHS.trainCreate, trainBody(f)),
  inProgress: async (api: Post): Promise<TrainState[]> => readTrainStates(await api.post<unknown>(MODEL_PATHS.trainInProgress, {})),
  progress: async (api: Post, ids: string[]): Promise<TrainState[]> => readTrainStates(await api.post<unknown>(MODEL_PATHS.trainProgress, { task_ids: ids })),
  log: async (api: Post, taskId: string): Promise<string[]> => readLog(await api.post<unknown>(MODEL_PATHS.trainLog, { task_id: taskId })),
};
