// The bot dialect (mirror of protocol/src/prompt/bot.rs; the rules are
// documented in protocol/src/prompt/mod.rs).

import { command, deriveParams } from './command';
import { chars, isSpace, LONG_DASH, markerName, parseNumber, str, tokens, trim, type Chars } from './syntax';
import type { ParseResult, Word } from './types';
import { assignIds, newWord, withLv } from './word';

export function parseBot(text: string): ParseResult {
  const cs = chars(text);
  const split = paramsStart(cs);
  const words = promptWords(cs.slice(0, split));
  const egWords: Word[] = [];
  const toks = tokens(cs.slice(split));
  let i = 0;
  while (i < toks.length) {
    const first = toks[i] ?? [];
    let end = i + 1;
    while (end < toks.length && markerName(toks[end] ?? []) === undefined) end += 1;
    const cmd = command(first, toks.slice(i + 1, end));
    if (cmd?.kind === 'word') words.push(cmd.word);
    else if (cmd?.kind === 'negative') egWords.push(...cmd.words);
    i = end;
  }
  const params = deriveParams(words);
  assignIds(words, egWords);
  return { words, egWords, params };
}

function paramsStart(cs: Chars): number {
  for (let i = 0; i < cs.length; i += 1) {
    const tokenStart =
      i === 0 || isSpace(cs[i - 1]) || (i >= 2 && cs[i - 2] === ':' && cs[i - 1] === ':');
    if (tokenStart && markerAt(cs, i)) return i;
  }
  return cs.length;
}

function markerAt(cs: Chars, i: number): boolean {
  const c = cs[i];
  const starts = c === '-' ? cs[i + 1] === '-' : c === LONG_DASH;
  if (!starts) return false;
  let j = i;
  while (j < cs.length && (cs[j] === '-' || cs[j] === LONG_DASH)) j += 1;
  return j < cs.length && !isSpace(cs[j]);
}

function promptWords(prompt: Chars): Word[] {
  const pieces: Chars[] = [];
  let start = 0;
  let i = 0;
  while (i + 1 < prompt.length) {
    if (prompt[i] === ':' && prompt[i + 1] === ':') {
      pieces.push(prompt.slice(start, i));
      i += 2;
      start = i;
    } else i += 1;
  }
  pieces.push(prompt.slice(start));

  const parts: [Chars, number][] = [];
  let current: Chars = pieces[0] ?? [];
  for (const piece of pieces.slice(1)) {
    let tokLen = piece.findIndex((c) => isSpace(c));
    if (tokLen < 0) tokLen = piece.length;
    const w = parseNumber(piece.slice(0, tokLen));
    if (w !== undefined) {
      parts.push([current, w]);
      current = piece.slice(tokLen);
    } else {
      parts.push([current, 1]);
      current = piece;
    }
  }
  parts.push([current, 1]);
  return parts
    .map(([t, w]): [Chars, number] => [trim(t), w])
    .filter(([t]) => t.length > 0)
    .map(([t, w]) => withLv(newWord('word', 'normal', str(t)), w));
}
