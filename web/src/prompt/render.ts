// Rendering words, negative words and parameters back to prompt text (mirror
// of protocol/src/prompt/render.rs): the canonical form the parsers read back
// to the same result.

import { canonical, commandName } from './command';
import {
  chars,
  endsWithBareDashes,
  endsWithLoneBackslash,
  hasTopSeparator,
  hasUnclosedOpener,
  LONG_DASH,
  startsLikeCommand,
  topColons,
} from './syntax';
import { PARAM_NAMES, type Dialect, type PromptParams, type Word } from './types';
import { formatNumber, stepLevel } from './word';

export function render(
  words: readonly Word[],
  egWords: readonly Word[],
  params: PromptParams,
  dialect: Dialect,
): string {
  return dialect === 'webui' ? renderWebui(words, egWords, params) : renderBot(words, egWords, params);
}

function renderWebui(words: readonly Word[], egWords: readonly Word[], params: PromptParams): string {
  const segments = words.filter((w) => w.rawText !== '').map(webuiWord);
  segments.push(...uncoveredParams(words, params));
  segments.push(...egWords.filter((w) => w.rawText !== '').map((w) => `--no ${w.rawText}`));
  return segments.join(', ');
}

function renderBot(words: readonly Word[], egWords: readonly Word[], params: PromptParams): string {
  const prompt = words.filter((w) => w.type !== 'command' && w.rawText !== '');
  const pieces: string[] = prompt.map((w, i) => {
    const last = i + 1 === prompt.length;
    let piece = w.rawText;
    if (!last || w.lv !== 1) {
      if (piece.endsWith(':') || piece.endsWith('-') || piece.endsWith(LONG_DASH)) piece += ' ';
      piece += '::';
      if (w.lv !== 1) piece += formatNumber(w.lv);
    }
    return piece;
  });
  pieces.push(...words.filter((w) => w.type === 'command' && w.rawText !== '').map((w) => w.rawText));
  pieces.push(...uncoveredParams(words, params));
  pieces.push(...botNegatives(egWords));
  return pieces.join(' ');
}

// `--no a, b` commands that split back into the same items with the same
// tokens (see bot_negatives in render.rs): a word starting like a command is
// attached with a bare `,`; a word ending in a bare dash token gets a space
// before its comma; a word leaving a bracket open ends its `--no`.
function botNegatives(egWords: readonly Word[]): string[] {
  const out: string[] = [];
  let open: { text: string; dashes: boolean } | undefined;
  for (const w of egWords) {
    if (w.rawText === '') continue;
    const cs = chars(w.rawText);
    const attach = startsLikeCommand(cs);
    let text: string;
    if (open === undefined) text = attach ? '--no ,' : '--no ';
    else text = `${open.text}${open.dashes ? ' ' : ''}${attach ? ',' : ', '}`;
    text += w.rawText;
    if (hasUnclosedOpener(cs)) {
      out.push(text);
      open = undefined;
    } else {
      open = { text, dashes: endsWithBareDashes(cs) };
    }
  }
  if (open !== undefined) out.push(open.text);
  return out;
}

// Sets, not lists: thousands of unknown commands made the lookups quadratic.
function uncoveredParams(words: readonly Word[], params: PromptParams): string[] {
  const names = new Set(
    words
      .filter((w) => w.type === 'command')
      .map(commandName)
      .filter((n): n is string => n !== undefined),
  );
  const covered = new Set([...names].map(canonical));
  const out: string[] = [];
  for (const name of PARAM_NAMES) {
    const value = params[name];
    if (value !== undefined && !covered.has(name)) out.push(paramText(name, value));
  }
  for (const u of params.unknown ?? []) {
    if (!names.has(u.name)) out.push(paramText(u.name, u.value));
  }
  return out;
}

function paramText(name: string, value: string): string {
  return value === '' ? `--${name}` : `--${name} ${value}`;
}

function webuiWord(w: Word): string {
  switch (w.type) {
    case 'command':
      return w.rawText;
    case 'editing':
      return weighted(`[${w.rawText}]`, w.lv);
    case 'word':
      return weighted(w.rawText, w.lv);
    default: {
      const kind = w.args[0] ?? w.type;
      const extras = w.args.slice(1);
      let out = `<${kind}:${w.rawText}`;
      if (w.lv !== 1 || extras.length > 0) out += `:${formatNumber(w.lv)}`;
      for (const e of extras) out += `:${e}`;
      return `${out}>`;
    }
  }
}

function weighted(core: string, lv: number): string {
  const cs = chars(core);
  const pad = endsWithLoneBackslash(cs) ? ' ' : '';
  if (lv === 1) {
    if (hasTopSeparator(cs) || startsLikeCommand(cs)) return `(${core}${pad}:1)`;
    return core;
  }
  const k = stepLevel(lv);
  if (k === 0 || topColons(cs).length > 0) return `(${core}${pad}:${formatNumber(lv)})`;
  const n = Math.abs(k);
  const [open, close] = k > 0 ? ['(', ')'] : ['[', ']'];
  return `${open.repeat(n)}${core}${pad}${close.repeat(n)}`;
}
