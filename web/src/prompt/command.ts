// Double-dash commands shared by both dialects (mirror of
// protocol/src/prompt/command.rs): command words, `--no` negative words and
// the parameter summary.

import { isSeparator, markerName, splitTop, str, tokens, trim, type Chars } from './syntax';
import type { ParamName, PromptParams, UnknownParam, Word } from './types';
import { cutDisplay, newWord } from './word';

export type Command = { kind: 'word'; word: Word } | { kind: 'negative'; words: Word[] };

export function command(first: Chars, value: readonly Chars[]): Command | undefined {
  const name = markerName(first);
  if (name === undefined) return undefined;
  const valueText = value.map(str).join(' ');
  if (asciiLower(str(name)) === 'no') {
    return { kind: 'negative', words: negativeWords(valueText) };
  }
  const firstText = str(first);
  const raw = valueText === '' ? firstText : `${firstText} ${valueText}`;
  const word = newWord('command', 'command', raw);
  word.text = cutDisplay(firstText);
  if (valueText !== '') word.args = [valueText];
  return { kind: 'word', word };
}

export function commandFromText(cs: Chars): Command | undefined {
  const toks = tokens(cs);
  const [first, ...rest] = toks;
  return first === undefined ? undefined : command(first, rest);
}

export function negativeWords(value: string): Word[] {
  return splitTop(Array.from(value), isSeparator)
    .map(trim)
    .filter((item) => item.length > 0)
    .map((item) => newWord('word', 'eg', str(item)));
}

function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

const ALIASES: Record<string, ParamName> = {
  version: 'version',
  v: 'version',
  aspect: 'aspect',
  ar: 'aspect',
  quality: 'quality',
  q: 'quality',
  chaos: 'chaos',
  c: 'chaos',
  seed: 'seed',
  stop: 'stop',
  style: 'style',
  niji: 'niji',
  repeat: 'repeat',
  r: 'repeat',
  iw: 'iw',
  width: 'width',
  w: 'width',
  height: 'height',
  h: 'height',
};

export function canonical(name: string): ParamName | undefined {
  const key = asciiLower(name);
  return Object.prototype.hasOwnProperty.call(ALIASES, key) ? ALIASES[key] : undefined;
}

export function commandName(word: Word): string | undefined {
  const first = tokens(Array.from(word.rawText))[0];
  if (first === undefined) return undefined;
  const name = markerName(first);
  return name === undefined ? undefined : str(name);
}

export function deriveParams(words: readonly Word[]): PromptParams {
  const params: PromptParams = {};
  const unknown: UnknownParam[] = [];
  for (const word of words) {
    if (word.type !== 'command') continue;
    const name = commandName(word);
    if (name === undefined) continue;
    const value = word.args[0] ?? '';
    const key = canonical(name);
    if (key === undefined) unknown.push({ name, value });
    else params[key] = value;
  }
  if (unknown.length > 0) params.unknown = unknown;
  return params;
}
