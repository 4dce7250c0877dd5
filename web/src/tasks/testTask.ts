// A full task object for unit tests.
import type { Task } from './types';

export function makeTask(over: Partial<Task> & { id: string }): Task {
  return {
    status: 2,
    process: 0,
    rest_estimate_time: 10,
    estimate_time: 20,
    pub_community: false,
    nsfw: false,
    category: 1,
    status_desc: 'running',
    expiration_time: null,
    create_at: 1_000,
    sub_status: 0,
    type: 1,
    preprocess_images: [],
    img_uris: [],
    reverse_prompts: [],
    deduction_detail: { coins: 1, state: 'held' },
    reason: null,
    outputs: [],
    engine: { name: 'reference', neural: false, label: 'Easel reference engine (non-neural)' },
    prompt: 'a red fox',
    width: 512,
    height: 512,
    n_iter: 1,
    seed: 1,
    queue_position: null,
    speed_type: 1,
    saved: false,
    ...over,
  };
}
