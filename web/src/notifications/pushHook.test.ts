import { describe, expect, it } from 'vitest';
import { FrameType } from '../socket/frames';
import type { PushFrame } from '../socket/frames';
import { createAppStore } from '../state/jotai';
import { notificationsAtom } from './atoms';
import { applyNotificationFrame } from './pushHook';

function frame(content: unknown, type: number = FrameType.Notification): PushFrame {
  return { type, seq: 1, content } as unknown as PushFrame;
}

describe('frame 13 into the bell', () => {
  it('counts a like and lists it once, ignoring other notices and frames', () => {
    const store = createAppStore();
    const like = { id: 'n1', kind: 'like', actor: { id: 'b', name: 'Bea' }, obj_id: 'w1', obj_type: 4, text: 'Fox', create_at: 10, read: false, unread: 1 };
    applyNotificationFrame(store, frame(like));
    applyNotificationFrame(store, frame(like));
    applyNotificationFrame(store, frame({ kind: 'channel.members', channel_id: 'c1' }));
    applyNotificationFrame(store, frame({ id: 'task', status: 2, process: 0 }, FrameType.TaskUpdate));
    const s = store.get(notificationsAtom);
    expect(s.unread).toBe(1);
    expect(s.items.map((n) => n.id)).toEqual(['n1']);
    applyNotificationFrame(store, frame({ ...like, id: 'n2', kind: 'follow', create_at: 11, unread: 2 }));
    expect(store.get(notificationsAtom).unread).toBe(2);
    expect(store.get(notificationsAtom).items.map((n) => n.kind)).toEqual(['follow', 'like']);
  });
});
