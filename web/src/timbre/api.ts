// Voice (timbre) calls and wire types (spec 3 §3, §7; COMMON18): the voice,
// the square lists with the ai-audio filters (genders, ages, languages,
// tones) and order, detail, edit/create, delete, training with its progress
// and log, samples, speech, and a chat session's voice.
import type { ApiClient } from '../api/client';

export const GENDERS = ['male', 'female', 'non_binary', 'other'] as const;
export const AGES = ['juvenile', 'young', 'adult', 'senior'] as const;
export const LANGUAGES = ['en', 'ja', 'zh-cn', 'nl', 'ar', 'fr', 'de', 'id', 'it', 'ko', 'pt', 'ru', 'es', 'tr', 'uk', 'vi', 'th', 'pl', 'ro', 'el', 'cs', 'fi', 'hi'] as const;
export const INTONATIONS = [
  'lively',
  'naive',
  'charming',
  'cheerful',
  'cunning',
  'mysterious',
  'gentle',
  'serious',
  'calm',
  'steady',
  'domineering',
  'shy',
  'melancholic',
  'timid',
  'other',
] as const;
export const ORDERS = ['recommend', 'hot', 'new'] as const;
export type Gender = (typeof GENDERS)[number];
export type Age = (typeof AGES)[number];
export type Order = (typeof ORDERS)[number];

export interface Timbre {
  id: string;
  name: string;
  description: string;
  gender: string;
  age: string;
  language: string;
  intonation: string;
  is_public: boolean;
  status: 'ready' | 'training' | 'failed' | string;
  engine: string;
  base: string;
  neural: boolean;
  label: string;
  preview_url: string | null;
  preview_duration: number | null;
  params: Record<string, unknown>;
  owner: { id: string; name: string };
  is_mine: boolean;
  uses: number;
  create_at: number;
  train_task_id?: string | null;
}

export interface TimbreFilters {
  order_by: Order;
  genders: string[];
  ages: string[];
  languages: string[];
  tones: string[];
}

export const NO_FILTERS: TimbreFilters = { order_by: 'recommend', genders: [], ages: [], languages: [], tones: [] };

export interface TimbrePage {
  items: Timbre[];
  next_cursor: string | null;
}

export type TimbreFeed = 'list' | 'my' | 'rec';

export const TIMBRE_PATHS = {
  list: '/api/v1/square/timbre/voice/list',
  my: '/api/v1/square/timbre/my',
  rec: '/api/v1/square/timbre/comprehensive-rec',
  detail: '/api/v1/timbre/detail',
  edit: '/api/v1/timbre/edit',
  del: '/api/v1/timbre/delete',
  train: '/api/v1/timbre/train',
  progress: '/api/v1/timbre/train/progress',
  log: '/api/v1/timbre/train/log',
  samples: '/api/v1/timbre/voice/get',
  deleteSample: '/api/v1/timbre/voice/delete',
  tts: '/api/v1/timbre/tts',
  sessionTimbre: '/api/v1/character/session/timbre/set',
} as const;

/** The body of a list call: only the filters that narrow. */
export function listBody(filters: TimbreFilters, cursor: string | null, limit = 24): Record<string, unknown> {
  const body: Record<string, unknown> = { order_by: filters.order_by, limit };
  if (cursor) body.cursor = cursor;
  for (const k of ['genders', 'ages', 'languages', 'tones'] as const) if (filters[k].length > 0) body[k] = filters[k];
  return body;
}

/** Toggles `value` in one of the filter lists. */
export function toggleFilter(filters: TimbreFilters, key: 'genders' | 'ages' | 'languages' | 'tones', value: string): TimbreFilters {
  const now = filters[key];
  return { ...filters, [key]: now.includes(value) ? now.filter((v) => v !== value) : [...now, value] };
}

export function listTimbres(api: Pick<ApiClient, 'post'>, feed: TimbreFeed, filters: TimbreFilters, cursor: string | null): Promise<TimbrePage> {
  return api.post<TimbrePage>(TIMBRE_PATHS[feed], listBody(filters, cursor));
}

export interface SpeechResult {
  url: string;
  duration: number;
  timbre_id?: string;
  engine?: { name: string; neural: boolean; label: string };
}

export function speak(api: Pick<ApiClient, 'post'>, body: { text: string; timbre_id?: string; speed?: number; emotion?: string }): Promise<SpeechResult> {
  return api.post<SpeechResult>(TIMBRE_PATHS.tts, body);
}

export interface TimbreEdit {
  id?: string;
  name: string;
  description: string;
  gender: string;
  age: string;
  language: string;
  intonation: string;
  is_public: boolean;
  base?: string;
}

export interface TrainProgress {
  status: string;
  percent: number;
  task_id: string | null;
}

export interface Sample {
  id: string;
  url: string;
  duration: number;
}

/** Voice training takes 1 to 5 samples (server: TimbreSamplesInvalid otherwise). */
export const SAMPLES_MIN = 1;
export const SAMPLES_MAX = 5;

/** The form of a voice being created or edited, from a voice (or blank). */
export function editForm(v: Timbre | null): TimbreEdit {
  return v
    ? { id: v.id, name: v.name, description: v.description, gender: v.gender, age: v.age, language: v.language, intonation: v.intonation, is_public: v.is_public, base: v.base }
    : { name: '', description: '', gender: 'female', age: 'adult', language: 'en', intonation: 'gentle', is_public: false };
}
