// Task progress frames (frame 10) for the training page. Free of imports
// from app/services, so that services.ts can wire `trainingPushHook` into
// the socket's onPush like the task list's hook. The page listens while it
// is mounted; frames of tasks it does not show are ignored there.
import { FrameType } from '../socket/frames';
import type { PushFrame } from '../socket/frames';
import { readTrainStates } from './training';
import type { TrainState } from './training';

export interface TrainingListener {
  /** A pushed state of some task (the page keeps those it lists). */
  onState(s: TrainState): void;
  /** The socket came back without replaying every frame. */
  onResync(): void;
}

const listeners = new Set<TrainingListener>();

/** Listens until the returned function is called. */
export function listenTrainings(l: TrainingListener): () => void {
  listeners.add(l);
  return () => {
    listeners.delete(l);
  };
}

/** A pushed frame 10 as a training's state, or null for any other frame. */
export function trainStateOf(frame: PushFrame): TrainState | null {
  if (frame.type !== FrameType.TaskUpdate) return null;
  const [s] = readTrainStates([frame.content]);
  return s && s.task_id !== '' ? s : null;
}

/** Pass to the socket client's push dispatcher. */
export function trainingPushHook(frame: PushFrame): void {
  if (listeners.size === 0) return;
  const s = trainStateOf(frame);
  if (s === null) return;
  for (const l of listeners) l.onState(s);
}

/** After a resume that lost frames: listening pages read their trainings again. */
export function trainingResyncHook(): void {
  for (const l of listeners) l.onResync();
}
