// Frame 13 `{kind: "award.granted", award}` into the award popup's queue,
// and the credits marked stale so the header shows the new balance. Free of
// imports from app/services so that services.ts can wire it into onPush.
import { paymentStaleAtom } from '../mall/pushHook';
import type { PushFrame } from '../socket/frames';
import { FrameType } from '../socket/frames';
import { appStore } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import { awardsStaleAtom } from './atoms';
import { parseAwardPush } from './model';

export function applyAwardFrame(store: AppStore, frame: PushFrame): void {
  if (frame.type !== FrameType.Notification) return;
  if (parseAwardPush(frame.content) === null) return;
  // The popup reads the unseen list (which marks it seen) rather than
  // showing the pushed copy, so two tabs never both show one award.
  store.set(awardsStaleAtom, (n) => n + 1);
  store.set(paymentStaleAtom, (n) => n + 1);
}

export function awardPushHook(frame: PushFrame): void {
  applyAwardFrame(appStore, frame);
}
