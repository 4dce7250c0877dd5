import { describe, expect, it } from 'vitest';
import { createAppStore } from '../state/jotai';
import { FrameType } from '../socket/frames';
import { applySpeechFrame, parseSpeech, replySpeechAtom } from './speech';

describe('chat reply speech', () => {
  it('reads chat.speech and chat.speech_failed, nothing else', () => {
    expect(parseSpeech({ kind: 'chat.speech', session_id: 's', message_id: 'm', url: '/files/s/a/x.m4a', duration: 2.5 }, 7)).toEqual({
      messageId: 'm',
      speech: { state: 'ready', sessionId: 's', url: '/files/s/a/x.m4a', duration: 2.5, at: 7 },
    });
    expect(parseSpeech({ kind: 'chat.speech_failed', session_id: 's', message_id: 'm', key: 'speechTimeout', msg: 'slow' }, 0)).toEqual({
      messageId: 'm',
      speech: { state: 'failed', sessionId: 's', key: 'speechTimeout', msg: 'slow' },
    });
    expect(parseSpeech({ kind: 'like', session_id: 's', message_id: 'm' }, 0)).toBeNull();
    expect(parseSpeech({ kind: 'chat.speech', session_id: 's', message_id: 'm' }, 0)).toBeNull();
    expect(parseSpeech({ kind: 'chat.speech', message_id: 'm', url: 'u' }, 0)).toBeNull();
    expect(parseSpeech(null, 0)).toBeNull();
  });

  it('keeps each reply’s speech by message id from frame 13 only', () => {
    const store = createAppStore();
    applySpeechFrame(store, { type: FrameType.Notification, content: { kind: 'chat.speech', session_id: 's', message_id: 'm1', url: 'u1', duration: 1 } }, 1);
    applySpeechFrame(store, { type: FrameType.Notification, content: { kind: 'chat.speech_failed', session_id: 's', message_id: 'm2', key: 'speechUnavailable', msg: '' } }, 2);
    expect(Object.keys(store.get(replySpeechAtom)).sort()).toEqual(['m1', 'm2']);
    expect(store.get(replySpeechAtom).m1?.state).toBe('ready');
    expect(store.get(replySpeechAtom).m2?.state).toBe('failed');
  });
});
