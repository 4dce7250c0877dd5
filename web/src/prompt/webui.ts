// The web-UI dialect (mirror of protocol/src/prompt/webui.rs; the rules are
// documented in protocol/src/prompt/mod.rs).

import { commandFromText, deriveParams } from './command';
import {
  chars,
  escapeUnmatched,
  isSeparator,
  parseNumber,
  splitTop,
  str,
  topColons,
  trim,
  wrappingBracket,
  type Chars,
} from './syntax';
import type { ParseResult, Word, WordType } from './types';
import { assignIds, clampLv, newWord, WEIGHT_STEP, withLv } from './word';


export function parseWebui(text: string): ParseResult {
  const normalised = escapeUnmatched(chars(text));
  const words: Word[] = [];
  const egWords: Word[] = [];
  for (const raw of splitTop(normalised, isSeparator)) {
    const segment = trim(raw);
    if (segment.length === 0) continue;
    const cmd = commandFromText(segment);
    if (cmd?.kind === 'word') words.push(cmd.word);
    else if (cmd?.kind === 'negative') egWords.push(...cmd.words);
    else {
      const w = word(segment);
      if (w !== undefined) words.push(w);
    }
  }
  const params = deriveParams(words);
  assignIds(words, egWords);
  return { words, egWords, params };
}

/** `[from, to, when, "steps"|"fraction"]` for the inside of `[...]`, if editing. */
export function editingArgs(inner: Chars): string[] | undefined {
  const colons = topColons(inner);
  if (colons.length === 0 || colons.length > 2) return undefined;
  const parts: Chars[] = [];
  let start = 0;
  for (const c of colons) {
    parts.push(trim(inner.slice(start, c)));
    start = c + 1;
  }
  const when = trim(inner.slice(start));
  const w = parseNumber(when);
  if (w === undefined || w < 0) return undefined;
  const [a, b] = parts;
  const from = parts.length === 2 && a !== undefined ? str(a) : '';
  const to = parts.length === 2 ? str(b ?? []) : str(a ?? []);
  return [from, to, str(when), w >= 1 ? 'steps' : 'fraction'];
}

function word(segment: Chars): Word | undefined {
  let core: Chars = segment;
  let m = 1;
  for (;;) {
    const open = wrappingBracket(core);
    if (open === undefined) break;
    const inner = trim(core.slice(1, core.length - 1));
    if (open === '(') {
      const last = topColons(inner).at(-1);
      const w = last === undefined ? undefined : parseNumber(trim(inner.slice(last + 1)));
      if (last !== undefined && w !== undefined) {
        m = clampLv(m * w);
        core = trim(inner.slice(0, last));
      } else {
        m = clampLv(m * WEIGHT_STEP);
        core = inner;
      }
    } else {
      if (editingArgs(inner) !== undefined) break;
      m = clampLv(m / WEIGHT_STEP);
      core = inner;
    }
  }
  if (core.length === 0) return undefined;
  if (wrappingBracket(core) === '[') {
    const inner = trim(core.slice(1, core.length - 1));
    const args = editingArgs(inner);
    if (args !== undefined) {
      return { ...withLv(newWord('editing', 'normal', str(inner)), m), args };
    }
  }
  return extraNetwork(core, m) ?? withLv(newWord('word', 'normal', str(core)), m);
}

function typeOfKind(kind: string): WordType {
  switch (kind.replace(/[A-Z]/g, (c) => c.toLowerCase())) {
    case 'lora':
      return 'lora';
    case 'lyco':
      return 'lyco';
    case 'hypernet':
      return 'hypernet';
    case 'embedding':
      return 'embedding';
    default:
      return 'extra';
  }
}

/**
 * `<kind:name[:weight][:extra...]>`. A tag holding a separator is plain text:
 * angle brackets do not group, so rendered on its own it would split there.
 */
function extraNetwork(core: Chars, m: number): Word | undefined {
  if (core[0] !== '<' || core[core.length - 1] !== '>' || core.length < 2) return undefined;
  const inner = core.slice(1, core.length - 1);
  if (inner.some(isSeparator)) return undefined;
  const parts: Chars[] = [];
  let cur: string[] = [];
  for (const c of inner) {
    if (c === ':') {
      parts.push(trim(cur));
      cur = [];
    } else cur.push(c);
  }
  parts.push(trim(cur));
  const [kind, name, ...rest] = parts;
  if (kind === undefined || name === undefined || kind.length === 0 || name.length === 0) {
    return undefined;
  }
  const first = rest[0];
  const w = first === undefined ? undefined : parseNumber(first);
  const weight = w ?? 1;
  const extras = w === undefined ? rest : rest.slice(1);
  const kindText = str(kind);
  return {
    ...withLv(newWord(typeOfKind(kindText), 'normal', str(name)), clampLv(m * weight)),
    args: [kindText, ...extras.map(str)],
  };
}
