import { describe, expect, it } from 'vitest';
import { IDLE, parsePolishMessage, polishStep } from './polish';
import type { PolishEvent, PolishState } from './polish';

function run(events: PolishEvent[], from: PolishState = IDLE) {
  let state = from;
  const effects = [];
  for (const e of events) {
    const step = polishStep(state, e);
    state = step.state;
    effects.push(...step.effects);
  }
  return { state, effects };
}

const msg = (code: number, prompt = ''): PolishEvent => ({ type: 'message', code, prompt });

describe('polishStep', () => {
  it('starts only for a non-empty prompt while idle', () => {
    expect(run([{ type: 'submit', prompt: '   ' }])).toEqual({ state: IDLE, effects: [] });
    const started = run([{ type: 'submit', prompt: 'a cat' }]);
    expect(started.state.phase).toBe('polishing');
    expect(started.effects).toEqual([{ kind: 'start', prompt: 'a cat' }]);
    // A second submit while running is ignored.
    expect(polishStep(started.state, { type: 'submit', prompt: 'a dog' })).toEqual({ state: started.state, effects: [] });
  });

  it('fills the field fragment by fragment and ends on 10000 with the whole prompt, keeping one undo', () => {
    const r = run([{ type: 'submit', prompt: 'cat' }, msg(70005, 'A fluffy'), msg(70005, ' cat'), msg(10000, 'A fluffy cat, soft light')]);
    expect(r.effects).toEqual([
      { kind: 'start', prompt: 'cat' },
      { kind: 'setPrompt', text: 'A fluffy' },
      { kind: 'setPrompt', text: 'A fluffy cat' },
      { kind: 'stop' },
      { kind: 'setPrompt', text: 'A fluffy cat, soft light' },
    ]);
    expect(r.state).toEqual({ phase: 'idle', undo: 'cat' });
    const undone = polishStep(r.state, { type: 'undo' });
    expect(undone).toEqual({ state: IDLE, effects: [{ kind: 'setPrompt', text: 'cat' }] });
    // Only once.
    expect(polishStep(undone.state, { type: 'undo' }).effects).toEqual([]);
  });

  it('uses the fragments when 10000 carries no prompt', () => {
    const r = run([{ type: 'submit', prompt: 'cat' }, msg(70005, 'A cat'), msg(10000)]);
    expect(r.effects.at(-1)).toEqual({ kind: 'setPrompt', text: 'A cat' });
    expect(r.state).toEqual({ phase: 'idle', undo: 'cat' });
  });

  it('opens the login dialog on 20000 without ending the stream', () => {
    const r = run([{ type: 'submit', prompt: 'cat' }, msg(20000)]);
    expect(r.state.phase).toBe('polishing');
    expect(r.effects.at(-1)).toEqual({ kind: 'openLogin' });
    // The connection closing afterwards returns to idle.
    expect(run([{ type: 'closed' }], r.state)).toEqual({ state: IDLE, effects: [{ kind: 'stop' }] });
  });

  it.each([
    [70006, 'taskPromptGenerateExecuting'],
    [70017, 'taskPromptGenerateLimit'],
    [70020, 'taskPromptGenerateViolate'],
  ] as const)('code %i shows %s and returns to idle', (code, key) => {
    const r = run([{ type: 'submit', prompt: 'cat' }, msg(code)]);
    expect(r.state).toEqual(IDLE);
    expect(r.effects.slice(1)).toEqual([{ kind: 'stop' }, { kind: 'toast', key }]);
  });

  it('ends silently on another code, and puts the original back if fragments were shown', () => {
    expect(run([{ type: 'submit', prompt: 'cat' }, msg(40000)]).effects.slice(1)).toEqual([{ kind: 'stop' }]);
    const r = run([{ type: 'submit', prompt: 'cat' }, msg(70005, 'A half'), msg(50310)]);
    expect(r.state).toEqual(IDLE);
    expect(r.effects.slice(2)).toEqual([{ kind: 'stop' }, { kind: 'setPrompt', text: 'cat' }]);
  });

  it('returns to idle on a stream error, a close or a cancel', () => {
    for (const type of ['streamError', 'closed', 'cancel'] as const) {
      const r = run([{ type: 'submit', prompt: 'cat' }, msg(70005, 'A'), { type }]);
      expect(r.state).toEqual(IDLE);
      expect(r.effects.slice(2)).toEqual([{ kind: 'stop' }, { kind: 'setPrompt', text: 'cat' }]);
    }
  });

  it('ignores stream messages while idle and forgets the undo when the user edits', () => {
    expect(run([msg(70005, 'x'), msg(10000, 'y'), { type: 'closed' }])).toEqual({ state: IDLE, effects: [] });
    expect(run([{ type: 'edited' }], { phase: 'idle', undo: 'cat' })).toEqual({ state: IDLE, effects: [] });
  });
});

describe('parsePolishMessage', () => {
  it('reads the code (number or string) and data.prompt', () => {
    expect(parsePolishMessage('{"status":{"code":70005,"msg":"","key":null},"data":{"prompt":"A "}}')).toEqual({ code: 70005, prompt: 'A ' });
    expect(parsePolishMessage('{"status":{"code":"10000"},"data":null}')).toEqual({ code: 10000, prompt: '' });
  });
  it('returns null for what is not an envelope', () => {
    expect(parsePolishMessage('nope')).toBeNull();
    expect(parsePolishMessage('{"data":{}}')).toBeNull();
    expect(parsePolishMessage('{"status":{"code":"x"}}')).toBeNull();
  });
});
