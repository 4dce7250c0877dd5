// Wire types of the task calls, mirroring protocol/src/task/view.rs and
// codes.rs. Keep the field names exactly as on the wire.

/** Task status (spec 1 §4): 1 and 2 are polled; 3 success; 4 failed or ended. */
export const TaskStatus = {
  Queued: 1,
  Running: 2,
  Success: 3,
  Ended: 4,
} as const;

/** Action codes (spec 1 §4) used by the result action bar. */
export const Action = {
  TextToImage: 1,
  Upscale: 2,
  Variation: 3,
  ExtraUpscale: 6,
  RemoveBackground: 7,
  Descriptors: 8,
  ImageToImage: 9,
  Expansion: 13,
} as const;

/** `status_desc` of a task the user cancelled: such tasks leave the list (spec 1 §4). */
export const USER_CANCELLED = 'user cancelled';

export interface EngineInfo {
  name: string;
  neural: boolean;
  label: string;
}

export interface TaskOutput {
  url: string;
  mime: string;
  width: number;
  height: number;
  seed: number;
}

/** The polled task (`TaskView`): frame 10, batch-progress, detail, list. */
export interface Task {
  id: string;
  status: number;
  /** Progress percent 0..=100. */
  process: number;
  rest_estimate_time: number;
  estimate_time: number;
  pub_community: boolean;
  nsfw: boolean;
  category: number;
  status_desc: string;
  expiration_time: number | null;
  /** Unix ms. */
  create_at: number;
  sub_status: number;
  /** The action code. */
  type: number;
  preprocess_images: string[];
  img_uris: string[];
  /** Video tasks: one MP4 per output; `img_uris` holds their posters. */
  video_uris?: string[];
  /** Audio tasks (actions 51-56): the audio files (audio/aac M4A), first the main one. */
  audio_uris?: string[];
  /** Video tasks: one HLS master playlist per output, where the server made them (may be empty). */
  hls_uris?: string[];
  reverse_prompts: string[];
  deduction_detail: { coins: number; state: string };
  reason: string | null;
  outputs: TaskOutput[];
  engine: EngineInfo | null;
  prompt: string;
  width: number;
  height: number;
  n_iter: number;
  seed: number;
  queue_position: number | null;
  speed_type: number;
  saved: boolean;
  /** The channel the task was made in; members' channel views show its progress. */
  channel_id?: string | null;
  /** The channel is PRIVATE: a user-cancelled task stays listed (spec 1 §4). */
  channel_private?: boolean;
  /** The account that created the task; other members' channel tasks are pushed too. */
  account_id?: string | null;
  /** The work this task was published as (`post/portfolio/add_v2`), or null. */
  pub_artwork_no?: string | null;
}

export interface ListRequest {
  time_from?: number;
  time_to?: number;
  keyword?: string;
  limit?: number;
  cursor?: string;
}

export interface ListAnswer {
  items: Task[];
  cursor: string | null;
}

/** `/api/v1/payment/assets/get`: credits, those held by running tasks, and what is left. */
export interface Assets {
  coins: number;
  held: number;
  available: number;
}
