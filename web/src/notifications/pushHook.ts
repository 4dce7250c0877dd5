// Frame 13 into the notification atoms. Free of imports from app/services so
// that services.ts can wire it into the socket's onPush.
import type { PushFrame } from '../socket/frames';
import { FrameType } from '../socket/frames';
import { appStore } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import { notificationsAtom, notificationsStaleAtom } from './atoms';
import { applyPushed, parseNotification } from './model';

/** Applies one pushed frame: a frame 13 that carries a like, collect, comment, reply or follow. */
export function applyNotificationFrame(store: AppStore, frame: PushFrame): void {
  if (frame.type !== FrameType.Notification) return;
  const n = parseNotification(frame.content);
  if (n === null) return;
  store.set(notificationsAtom, applyPushed(store.get(notificationsAtom), n));
}

/** Pass to the socket client's push dispatcher. */
export function notificationPushHook(frame: PushFrame): void {
  applyNotificationFrame(appStore, frame);
}

/** After a resume that lost frames: the bell reads the list again. */
export function notificationResyncHook(): void {
  appStore.set(notificationsStaleAtom, (n) => n + 1);
}
