// The web-UI dialect (mirror of protocol/src/prompt/webui.rs; the rules are
// documented in protocol/src/prompt/mod.rs).

import { commandFromText, deriveParams } from './command';
import {
  Bracketed,
  chars,
  escapeUnmatched,
  isSeparator,
  parseNumber,
  splitTop,
  str,
  trim,
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
  return editingArgsIn(new Bracketed(inner), 0, inner.length);
}

function editingArgsIn(text: Bracketed, lo: number, hi: number): string[] | undefined {
  const colons = text.topColons(lo, hi);
  if (colons.length === 0 || colons.length > 2) return undefined;
  const parts: Chars[] = [];
  let start = lo;
  for (const c of colons) {
    parts.push(trim(text.slice(start, c)));
    start = c + 1;
  }
  const when = trim(text.slice(start, hi));
  const w = parseNumber(when);
  if (w === undefined || w < 0) return undefined;
  const [a, b] = parts;
  const from = parts.length === 2 && a !== undefined ? str(a) : '';
  const to = parts.length === 2 ? str(b ?? []) : str(a ?? []);
  return [from, to, str(when), w >= 1 ? 'steps' : 'fraction'];
}

// The core is a range of the segment (see Bracketed), so peeling deep
// nesting stays linear.
function word(segment: Chars): Word | undefined {
  const text = new Bracketed(segment);
  let lo = 0;
  let hi = segment.length;
  let m = 1;
  for (;;) {
    const open = text.wrapping(lo, hi);
    if (open === undefined) break;
    const [inLo, inHi] = text.trim(lo + 1, hi - 1);
    if (open === '(') {
      const last = text.topColons(inLo, inHi).at(-1);
      const w = last === undefined ? undefined : parseNumber(text.slice(...text.trim(last + 1, inHi)));
      if (last !== undefined && w !== undefined) {
        m = clampLv(m * w);
        [lo, hi] = text.trim(inLo, last);
      } else {
        m = clampLv(m * WEIGHT_STEP);
        [lo, hi] = [inLo, inHi];
      }
    } else {
      if (editingArgsIn(text, inLo, inHi) !== undefined) break;
      m = clampLv(m / WEIGHT_STEP);
      [lo, hi] = [inLo, inHi];
    }
  }
  if (lo >= hi) return undefined;
  if (text.wrapping(lo, hi) === '[') {
    const [inLo, inHi] = text.trim(lo + 1, hi - 1);
    const args = editingArgsIn(text, inLo, inHi);
    if (args !== undefined) {
      return { ...withLv(newWord('editing', 'normal', str(text.slice(inLo, inHi))), m), args };
    }
  }
  const core = text.slice(lo, hi);
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
