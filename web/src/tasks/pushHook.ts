// Entry points for the socket module, kept free of imports so that
// app/services.ts can wire them without an import cycle:
//
//   new SocketClient({ ..., onPush: taskPushHook, onResyncNeeded: taskResyncHook })
//
// Until they are wired the task sync reads the socket's frame log instead.
import type { PushFrame } from '../socket/frames';

interface PushTarget {
  onPush(frame: PushFrame): void;
  onResync(): void;
}

let target: PushTarget | null = null;

export function registerTaskPushTarget(t: PushTarget): void {
  target = t;
}

/** Pass as the socket client's `onPush`. */
export function taskPushHook(frame: PushFrame): void {
  target?.onPush(frame);
}

/** Pass as the socket client's `onResyncNeeded`. */
export function taskResyncHook(): void {
  target?.onResync();
}
