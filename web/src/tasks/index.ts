// The tasks feature: the live task list and the result action bar.
export { trackTaskAtom } from './atoms';
export { TaskPanel } from './TaskPanel';
/** For app/services.ts: `new SocketClient({..., onPush: taskPushHook, onResyncNeeded: taskResyncHook})`. */
export { taskPushHook, taskResyncHook } from './pushHook';
