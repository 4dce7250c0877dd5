// Pushed task frames reach the training page's listeners as training states.
import { describe, expect, it, vi } from 'vitest';
import { FrameType } from '../socket/frames';
import type { PushFrame } from '../socket/frames';
import { listenTrainings, trainingPushHook, trainingResyncHook, trainStateOf } from './trainPush';

const frame = (content: Record<string, unknown>): PushFrame => ({ type: FrameType.TaskUpdate, seq: 1, content: { id: 't1', ...content } });

describe('training progress frames', () => {
  it('reads a task frame as a training state and ignores other frames', () => {
    expect(trainStateOf(frame({ status: 2, process: 40 }))).toMatchObject({ task_id: 't1', status: 2, percent: 40 });
    expect(trainStateOf({ type: FrameType.Notification, seq: 2, content: { kind: 'credits' } } as PushFrame)).toBeNull();
    expect(trainStateOf(frame({ id: '' }))).toBeNull();
  });

  it('hands frames and resyncs to listeners until they stop', () => {
    const onState = vi.fn();
    const onResync = vi.fn();
    const stop = listenTrainings({ onState, onResync });
    trainingPushHook(frame({ status: 3, process: 100 }));
    trainingResyncHook();
    expect(onState).toHaveBeenCalledWith(expect.objectContaining({ task_id: 't1', status: 3, percent: 100 }));
    expect(onResync).toHaveBeenCalledTimes(1);
    stop();
    trainingPushHook(frame({ status: 2 }));
    expect(onState).toHaveBeenCalledTimes(1);
  });
});
