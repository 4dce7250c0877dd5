// Prompt dialects for the web app: parsePrompt / renderPrompt, the same rules
// as protocol/src/prompt (documented in its mod.rs) and the same results on
// the shared vectors in protocol/tests/vectors/prompt/.

import { parseBot } from './bot';
import { render } from './render';
import {
  DIALECTS,
  UnsupportedDialectError,
  type Dialect,
  type ParseResult,
  type PromptParams,
  type Word,
} from './types';
import { parseWebui } from './webui';

export * from './types';
export { editingArgs } from './webui';
export { assignIds, formatNumber, newWord, round2, stepLevel, withLv } from './word';

function checkDialect(dialect: string): Dialect {
  const found = DIALECTS.find((d) => d === dialect);
  if (found === undefined) throw new UnsupportedDialectError(dialect);
  return found;
}

/** Parses prompt text; throws UnsupportedDialectError for an unknown dialect, never otherwise. */
export function parsePrompt(text: string, dialect: Dialect | string): ParseResult {
  return checkDialect(dialect) === 'webui' ? parseWebui(text) : parseBot(text);
}

/** Renders words, negative words and parameters as prompt text in a dialect. */
export function renderPrompt(
  words: readonly Word[],
  egWords: readonly Word[],
  params: PromptParams,
  dialect: Dialect | string,
): string {
  return render(words, egWords, params, checkDialect(dialect));
}
