// Prompt word and parse result types (spec 1 §3), the TypeScript mirror of
// protocol/src/prompt/word.rs. Both sides serialise the same camelCase JSON;
// the shared vectors in protocol/tests/vectors/prompt/ pin the shape.

/** The two prompt dialects (spec 1 §5). Anything else is an error, never a guess. */
export type Dialect = 'webui' | 'bot';

export const DIALECTS: readonly Dialect[] = ['webui', 'bot'];

/**
 * What a word is. `word` is plain prompt text; `lora`, `lyco`, `hypernet`,
 * `embedding` and `extra` (an unknown kind) are web-UI extra-network tags
 * `<kind:name:weight>`; `editing` is web-UI prompt editing `[from:to:when]`;
 * `command` is a double-dash (or long-dash) parameter such as `--ar 16:9`.
 */
export type WordType =
  | 'word'
  | 'lora'
  | 'lyco'
  | 'hypernet'
  | 'embedding'
  | 'extra'
  | 'editing'
  | 'command';

/**
 * Which list of the editor a word belongs to (spec 1 §3). The parsers assign
 * `normal`, `command` and `eg` (negative); `style` and `quality` come from the
 * dictionary.
 */
export type WordSubType = 'normal' | 'style' | 'quality' | 'command' | 'eg';

/** One prompt word (spec 1 §3). */
export interface Word {
  /** rawText, plus `#n` for the n-th duplicate (unique across words and egWords). */
  id: string;
  /** Display text: rawText cut at 200 characters (Unicode code points). */
  text: string;
  /**
   * The whole word in prompt syntax, without its weight: escapes such as `\(`
   * are kept as typed. For extra networks the name, for editing the inside of
   * the brackets, for commands the whole command (`--ar 16:9`).
   */
  rawText: string;
  /** Translation; the parsers leave it empty. */
  langText: string;
  type: WordType;
  subType: WordSubType;
  /** True for negative words (egWords). */
  isEg: boolean;
  group: number;
  /** Weight, rounded to two decimals; 1 by default. */
  lv: number;
  /**
   * The weight in 1.1 steps: k when lv equals 1.1^k rounded (|k| <= 8,
   * `((a))` is 2, `[a]` is -1), else 0. Derived from lv.
   */
  alv: number;
  desc: string;
  dir: string;
  link: string;
  /**
   * Structured extras: editing `[from, to, when, "steps"|"fraction"]`; extra
   * networks `[kind, ...parts after the weight]`; commands `[value]` when the
   * command has a value.
   */
  args: string[];
  disabled: boolean;
  isAlias: boolean;
}

/** A double-dash parameter whose name is not one of the recognised ones. */
export interface UnknownParam {
  /** The name as typed, without its leading dashes. */
  name: string;
  /** The value as typed (tokens joined by one space), empty when none. */
  value: string;
}

/**
 * The recognised double-dash parameters, by canonical name (aliases folded:
 * `--v`, `--ar`, `--q`, `--c`, `--r`, `--w`, `--h`). Values are the text as
 * typed; the last occurrence wins. `--no` is not here: it makes egWords.
 */
export interface PromptParams {
  version?: string;
  aspect?: string;
  quality?: string;
  chaos?: string;
  seed?: string;
  stop?: string;
  style?: string;
  niji?: string;
  repeat?: string;
  iw?: string;
  width?: string;
  height?: string;
  /** Unknown parameters in order; absent when there are none. */
  unknown?: UnknownParam[];
}

/** The known parameter names in their canonical (render) order. */
export const PARAM_NAMES = [
  'version',
  'aspect',
  'quality',
  'chaos',
  'seed',
  'stop',
  'style',
  'niji',
  'repeat',
  'iw',
  'width',
  'height',
] as const;

export type ParamName = (typeof PARAM_NAMES)[number];

/** The parse result of DESIGN.md's Contracts (`easel prompt parse`). */
export interface ParseResult {
  words: Word[];
  egWords: Word[];
  params: PromptParams;
}

/** Thrown by parsePrompt / renderPrompt for a dialect other than webui or bot. */
export class UnsupportedDialectError extends Error {
  readonly dialect: string;
  constructor(dialect: string) {
    super(`unsupported prompt dialect "${dialect}" (expected webui or bot)`);
    this.name = 'UnsupportedDialectError';
    this.dialect = dialect;
  }
}
