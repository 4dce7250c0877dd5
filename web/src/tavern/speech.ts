// A chat reply spoken aloud (COMMON18): when a session has a voice, the
// server speaks each finished reply and pushes frame 13 with
// `{kind: "chat.speech", session_id, message_id, url, duration}` (or
// `chat.speech_failed` with key and msg). Kept by message id; the reply's
// bubble shows a play control, autoplayed when the user turned that on.
import type { PushFrame } from '../socket/frames';
import { FrameType } from '../socket/frames';
import { atom } from '../state/jotai';
import type { AppStore } from '../state/jotai';

export type ReplySpeech =
  | { state: 'ready'; sessionId: string; url: string; duration: number; at: number }
  | { state: 'failed'; sessionId: string; key: string | null; msg: string };

/** Message id -> its speech. */
export const replySpeechAtom = atom<Readonly<Record<string, ReplySpeech>>>({});

const AUTOPLAY_KEY = 'easel.chat.autoplay';

function storedAutoplay(): boolean {
  try {
    return globalThis.localStorage?.getItem(AUTOPLAY_KEY) === '1';
  } catch {
    return false;
  }
}

const autoplayBase = atom(storedAutoplay());
/** Play spoken replies as they arrive (kept in local storage). */
export const chatAutoplayAtom = atom(
  (get) => get(autoplayBase),
  (_get, set, on: boolean) => {
    set(autoplayBase, on);
    try {
      globalThis.localStorage?.setItem(AUTOPLAY_KEY, on ? '1' : '0');
    } catch {
      // Storage unavailable: the choice lasts this page only.
    }
  },
);

/** Frame 13's content as a reply's speech, or null for another kind of notice. */
export function parseSpeech(content: unknown, now: number): { messageId: string; speech: ReplySpeech } | null {
  if (typeof content !== 'object' || content === null) return null;
  const c = content as Record<string, unknown>;
  if (typeof c.session_id !== 'string' || typeof c.message_id !== 'string' || c.message_id === '') return null;
  if (c.kind === 'chat.speech' && typeof c.url === 'string' && c.url !== '') {
    const duration = typeof c.duration === 'number' && Number.isFinite(c.duration) ? c.duration : 0;
    return { messageId: c.message_id, speech: { state: 'ready', sessionId: c.session_id, url: c.url, duration, at: now } };
  }
  if (c.kind === 'chat.speech_failed') {
    return {
      messageId: c.message_id,
      speech: { state: 'failed', sessionId: c.session_id, key: typeof c.key === 'string' ? c.key : null, msg: typeof c.msg === 'string' ? c.msg : '' },
    };
  }
  return null;
}

/** Applies a pushed frame 13 that carries a reply's speech. */
export function applySpeechFrame(store: AppStore, frame: PushFrame, now: number = Date.now()): void {
  if (frame.type !== FrameType.Notification) return;
  const parsed = parseSpeech(frame.content, now);
  if (parsed === null) return;
  store.set(replySpeechAtom, (all) => ({ ...all, [parsed.messageId]: parsed.speech }));
}

export const SESSION_TIMBRE_PATH = '/api/v1/character/session/timbre/set';
