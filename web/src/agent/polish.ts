// Prompt polishing (spec 1 §4, §8; spec 3 §4, §8) as a pure state machine.
// Idle -> polishing when a non-empty prompt is submitted and none is running
// (ignored otherwise); back to idle on 10000 (done), on any error code, on a
// stream error, or when the connection closes. 20000 opens the login dialog
// and does not end the stream; 70005 delivers a fragment of the polished
// prompt, which fills the prompt field progressively; 70006, 70017 and 70020
// show their messages; other codes end silently.
//
// The field keeps the user's original prompt so that one undo restores it.
// A polish that ends without 10000 after fragments were shown puts the
// original back (a half-polished prompt is not what the user asked for).

/** Stream codes (protocol/src/error.rs). */
export const POLISH_DONE = 10000;
export const POLISH_NEED_LOGIN = 20000;
export const POLISH_FRAGMENT = 70005;
export const POLISH_RUNNING = 70006;
export const POLISH_LIMIT = 70017;
export const POLISH_VIOLATES = 70020;

/** The message key shown for a code, when it has one. */
export const POLISH_MESSAGE_KEYS = {
  [POLISH_RUNNING]: 'taskPromptGenerateExecuting',
  [POLISH_LIMIT]: 'taskPromptGenerateLimit',
  [POLISH_VIOLATES]: 'taskPromptGenerateViolate',
} as const;

export type PolishMessageKey = (typeof POLISH_MESSAGE_KEYS)[keyof typeof POLISH_MESSAGE_KEYS];

export type PolishState =
  | {
      phase: 'idle';
      /** The prompt before the last successful polish: one undo puts it back; null when there is none. */
      undo: string | null;
    }
  | {
      phase: 'polishing';
      /** The prompt the user submitted. */
      original: string;
      /** The polished text so far. */
      polished: string;
      /** Fragments have been written to the field. */
      shown: boolean;
    };

export const IDLE: PolishState = { phase: 'idle', undo: null };

export type PolishEvent =
  | { type: 'submit'; prompt: string }
  | { type: 'message'; code: number; prompt: string }
  | { type: 'streamError' }
  | { type: 'closed' }
  /** The user stopped it (or left the page). */
  | { type: 'cancel' }
  | { type: 'undo' }
  /** The user edited the field: undoing would lose that edit, so it is forgotten. */
  | { type: 'edited' };

/** What the caller must do after a transition. */
export type PolishEffect =
  | { kind: 'start'; prompt: string }
  | { kind: 'stop' }
  | { kind: 'setPrompt'; text: string }
  | { kind: 'openLogin' }
  | { kind: 'toast'; key: PolishMessageKey };

export interface PolishStep {
  state: PolishState;
  effects: PolishEffect[];
}

function idleAfterFailure(state: Extract<PolishState, { phase: 'polishing' }>, extra: PolishEffect[]): PolishStep {
  const restore: PolishEffect[] = state.shown ? [{ kind: 'setPrompt', text: state.original }] : [];
  return { state: IDLE, effects: [{ kind: 'stop' }, ...restore, ...extra] };
}

export function polishStep(state: PolishState, event: PolishEvent): PolishStep {
  switch (event.type) {
    case 'submit': {
      if (state.phase !== 'idle' || event.prompt.trim() === '') return { state, effects: [] };
      return {
        state: { phase: 'polishing', original: event.prompt, polished: '', shown: false },
        effects: [{ kind: 'start', prompt: event.prompt }],
      };
    }
    case 'message': {
      if (state.phase !== 'polishing') return { state, effects: [] };
      switch (event.code) {
        case POLISH_NEED_LOGIN:
          return { state, effects: [{ kind: 'openLogin' }] };
        case POLISH_FRAGMENT: {
          if (event.prompt === '') return { state, effects: [] };
          const polished = state.polished + event.prompt;
          return { state: { ...state, polished, shown: true }, effects: [{ kind: 'setPrompt', text: polished }] };
        }
        case POLISH_DONE: {
          const whole = event.prompt !== '' ? event.prompt : state.polished;
          if (whole.trim() === '') return idleAfterFailure(state, []);
          return {
            state: { phase: 'idle', undo: state.original },
            effects: [{ kind: 'stop' }, { kind: 'setPrompt', text: whole }],
          };
        }
        case POLISH_RUNNING:
        case POLISH_LIMIT:
        case POLISH_VIOLATES:
          return idleAfterFailure(state, [{ kind: 'toast', key: POLISH_MESSAGE_KEYS[event.code] }]);
        default:
          return idleAfterFailure(state, []);
      }
    }
    case 'streamError':
    case 'closed':
    case 'cancel':
      return state.phase === 'polishing' ? idleAfterFailure(state, []) : { state, effects: [] };
    case 'undo':
      if (state.phase !== 'idle' || state.undo === null) return { state, effects: [] };
      return { state: IDLE, effects: [{ kind: 'setPrompt', text: state.undo }] };
    case 'edited':
      return state.phase === 'idle' && state.undo !== null ? { state: IDLE, effects: [] } : { state, effects: [] };
  }
}

/** One event of the polish stream: `{"status":{"code":C,...},"data":{"prompt":..}}`; null when unreadable. */
export function parsePolishMessage(data: string): { code: number; prompt: string } | null {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const status = (value as { status?: unknown }).status;
  if (typeof status !== 'object' || status === null) return null;
  const rawCode = (status as { code?: unknown }).code;
  // spec 1 §8: the code may come as a number or a string.
  const code = typeof rawCode === 'string' ? Number(rawCode) : rawCode;
  if (typeof code !== 'number' || !Number.isFinite(code)) return null;
  const payload = (value as { data?: unknown }).data;
  const prompt = typeof payload === 'object' && payload !== null ? (payload as { prompt?: unknown }).prompt : undefined;
  return { code, prompt: typeof prompt === 'string' ? prompt : '' };
}
