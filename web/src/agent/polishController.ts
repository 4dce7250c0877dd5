// Runs the polish state machine against a real stream: one controller per
// mounted Polish button. Plain code (no React) so it can be tested with a
// scripted stream; the button only renders `state`.
import { IDLE, parsePolishMessage, polishStep } from './polish';
import type { PolishEvent, PolishMessageKey, PolishState } from './polish';
import { isAbort, readSse } from './sse';

/** The polish stream (spec 3 §7 "Prompt polish", the prompt-render variant). */
export const POLISH_PATH = '/api/v1/task/prompt-render';

/** Opens the stream for `prompt`, calling `onMessage` per event; resolves when the connection closes. */
export type PolishStream = (prompt: string, onMessage: (code: number, prompt: string) => void, signal: AbortSignal) => Promise<void>;

export interface PolishDeps {
  stream: PolishStream;
  setPrompt: (text: string) => void;
  openLogin: () => void;
  toast: (key: PolishMessageKey) => void;
  onState: (state: PolishState) => void;
}

/** The stream over fetch with the headers the server reads: token, language, deviceid. */
export function fetchPolishStream(headers: () => Record<string, string>, fetchFn?: typeof fetch): PolishStream {
  return (prompt, onMessage, signal) =>
    readSse(
      `${POLISH_PATH}?prompt=${encodeURIComponent(prompt)}`,
      (e) => {
        const m = parsePolishMessage(e.data);
        if (m) onMessage(m.code, m.prompt);
      },
      { headers: headers(), signal, ...(fetchFn ? { fetch: fetchFn } : {}) },
    );
}

export class PolishController {
  private current: PolishState = IDLE;
  private abort: AbortController | null = null;
  /** The text this controller last wrote to the field (to tell the user's own edits apart). */
  private written: string | null = null;
  private readonly deps: PolishDeps;

  constructor(deps: PolishDeps) {
    this.deps = { ...deps };
  }

  /** Points the field writer at the current field (React's `update` changes with the tab). */
  bindField(setPrompt: (text: string) => void): void {
    this.deps.setPrompt = setPrompt;
  }

  get state(): PolishState {
    return this.current;
  }

  submit(prompt: string): void {
    this.dispatch({ type: 'submit', prompt });
  }

  undo(): void {
    this.dispatch({ type: 'undo' });
  }

  cancel(): void {
    this.dispatch({ type: 'cancel' });
  }

  /** The field now shows `text`: when that is not what polishing wrote, the user edited it. */
  fieldChanged(text: string): void {
    if (this.written !== null && text !== this.written) {
      this.written = null;
      this.dispatch({ type: 'edited' });
    }
  }

  private dispatch(event: PolishEvent): void {
    const step = polishStep(this.current, event);
    const changed = step.state !== this.current;
    this.current = step.state;
    for (const effect of step.effects) {
      switch (effect.kind) {
        case 'start':
          this.start(effect.prompt);
          break;
        case 'stop':
          this.abort?.abort();
          this.abort = null;
          break;
        case 'setPrompt':
          this.written = effect.text;
          this.deps.setPrompt(effect.text);
          break;
        case 'openLogin':
          this.deps.openLogin();
          break;
        case 'toast':
          this.deps.toast(effect.key);
          break;
      }
    }
    if (changed) this.deps.onState(this.current);
  }

  private start(prompt: string): void {
    const abort = new AbortController();
    this.abort = abort;
    const live = () => this.abort === abort;
    this.deps
      .stream(prompt, (code, text) => live() && this.dispatch({ type: 'message', code, prompt: text }), abort.signal)
      .then(
        () => live() && this.dispatch({ type: 'closed' }),
        (e: unknown) => {
          if (!isAbort(e) && live()) this.dispatch({ type: 'streamError' });
        },
      );
  }
}
