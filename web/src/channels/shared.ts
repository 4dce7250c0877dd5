// Generating together in a channel: the text-to-image request a channel
// member sends, which running tasks a channel shows as progress cards, and
// the `channel.members` notification (frame 13). Pure functions only.
import type { Task } from '../tasks/types';
import { TaskStatus } from '../tasks/types';
import type { ChannelLog } from './model';

/** The catalogue fields used to pick a checkpoint (`/api/v1/task/v2/config/model`). */
export interface CheckpointChoice {
  model_ver_no: string;
  /** Creative mode: 1 normal (sd), 5 sdxl, 7 studio. */
  category: number;
  is_default: boolean;
}

/** The normal mode, whose default checkpoint a channel generation uses. */
export const SD_CATEGORY = 1;

/** The longest prompt the "Generate here" box takes (the generator's limit). */
export const CHANNEL_PROMPT_MAX = 1000;

/**
 * After this long a finished task whose result message never reached the
 * loaded history stops showing its card (the message may be in an older page).
 */
export const RESULT_WAIT_MS = 10 * 60_000;

/** The catalogue's default checkpoint of the normal (sd) mode, or null if it has none. */
export function defaultSdCheckpoint(checkpoints: readonly CheckpointChoice[]): string | null {
  const sd = checkpoints.filter((c) => c.category === SD_CATEGORY);
  return (sd.find((c) => c.is_default) ?? sd[0])?.model_ver_no ?? null;
}

export interface ChannelGenerateBody {
  category: number;
  art_model_ver_no: string;
  channel_id: string;
  meta: { prompt: string; n_iter: number };
}

/** The body of `POST /api/v1/task/v2/text-to-img` for one image made in a channel. */
export function channelGenerateBody(checkpoint: string, channelId: string, prompt: string): ChannelGenerateBody {
  return {
    category: SD_CATEGORY,
    art_model_ver_no: checkpoint,
    channel_id: channelId,
    meta: { prompt: prompt.trim(), n_iter: 1 },
  };
}

/** The task ids whose results are already in the channel's loaded history. */
export function postedTaskIds(log: ChannelLog): Set<string> {
  const out = new Set<string>();
  for (const m of log.items) if (m.kind === 'task' && m.task_id) out.add(m.task_id);
  return out;
}

/**
 * The channel's tasks to show as progress cards, oldest first: queued or
 * running ones, and finished ones whose result message has not arrived yet
 * (for at most {@link RESULT_WAIT_MS} after creation). Failed or cancelled
 * tasks leave at once.
 */
export function channelTaskCards(tasks: Iterable<Task>, channelId: string, log: ChannelLog, now: number): Task[] {
  const posted = postedTaskIds(log);
  const out: Task[] = [];
  for (const task of tasks) {
    if (task.channel_id !== channelId || posted.has(task.id)) continue;
    const live = task.status === TaskStatus.Queued || task.status === TaskStatus.Running;
    const awaiting = task.status === TaskStatus.Success && now - task.create_at < RESULT_WAIT_MS;
    if (live || awaiting) out.push(task);
  }
  return out.sort((a, b) => a.create_at - b.create_at || a.id.localeCompare(b.id));
}

/** The channel a frame-13 content says changed its members, else null. */
export function membersNoticeChannel(content: unknown): string | null {
  if (typeof content !== 'object' || content === null) return null;
  const c = content as Record<string, unknown>;
  if (c.kind !== 'channel.members' || typeof c.channel_id !== 'string' || c.channel_id === '') return null;
  return c.channel_id;
}
