// Between the editor's groups and prompt text: parsing input with the
// parsers of ../index (never throwing into the editor), and rendering a
// preset's groups back to the positive and negative prompt with each group's
// level applied as an outer weight.

import { formatNumber, parsePrompt, renderPrompt } from '../index';
import type { Dialect, ParseResult, Word } from '../types';
import { listOf } from './lists';
import type { Group, Preset } from './preset';
import { LV_DEFAULT, roundLv } from './weight';

/** The prompt texts a preset produces. */
export interface RenderedPrompt {
  /** The positive prompt (for the bot dialect it also carries `--no` negatives and the commands). */
  prompt: string;
  /** The web-UI negative prompt (the negative list rendered as its own prompt); empty for the bot dialect. */
  negativePrompt: string;
}

const EMPTY: ParseResult = { words: [], egWords: [], params: {} };

/**
 * Parses with the parsers of ../index. They never throw on text, only on an
 * unsupported dialect; a preset restored from old storage could carry one,
 * so that is logged and gives an empty result rather than breaking the editor.
 */
export function parseForEditor(text: string, dialect: Dialect): ParseResult {
  try {
    return parsePrompt(text, dialect);
  } catch (error) {
    console.warn('prompt editor: cannot parse the input', error);
    return EMPTY;
  }
}

function enabled(words: readonly Word[]): Word[] {
  return words.filter((word) => !word.disabled && word.rawText !== '');
}

/** The enabled words of a group's positive lists (normal, style, quality, command), in list order. */
function positiveWords(group: Group): Word[] {
  return (['normal', 'style', 'quality', 'command'] as const).flatMap((type) => enabled(listOf(group, type).items));
}

/**
 * Web UI: each group's non-command words rendered by `renderPrompt`, wrapped as
 * `(…:groupLv)` when the group level is not 1 (web UI multiplies nested
 * weights, so this is exactly an outer weight); groups joined by `, `; the
 * command words of every group last, outside any wrapper, because a command
 * inside brackets would no longer read as a command. The negative list of
 * every group becomes the separate negative prompt, group levels applied the
 * same way.
 *
 * Bot: the dialect has no nesting, so a group level multiplies the weight of
 * each of its words (rounded to two decimals), which keeps the ratios inside
 * the group and scales the group against the others; the words of all groups
 * then go through `renderPrompt` with the negative words, which it writes as
 * `--no …`.
 */
export function renderPreset(preset: Pick<Preset, 'groups' | 'parser'>): RenderedPrompt {
  try {
    return preset.parser === 'bot' ? renderBot(preset.groups) : renderWebui(preset.groups);
  } catch (error) {
    console.warn('prompt editor: cannot render the preset', error);
    return { prompt: '', negativePrompt: '' };
  }
}

/** True when `text` ends with an odd run of backslashes, which would escape a following `:` or `)`. */
function endsWithLoneBackslash(text: string): boolean {
  const run = /\\+$/.exec(text)?.[0].length ?? 0;
  return run % 2 === 1;
}

function wrapWebui(text: string, groupLv: number): string {
  if (text === '' || groupLv === LV_DEFAULT) return text;
  // The parser trims the pad again (as for a single word, see ../render.ts).
  const pad = endsWithLoneBackslash(text) ? ' ' : '';
  return `(${text}${pad}:${formatNumber(groupLv)})`;
}

function renderWebui(groups: readonly Group[]): RenderedPrompt {
  const positive: string[] = [];
  const negative: string[] = [];
  const commands: Word[] = [];
  for (const group of groups) {
    const words = positiveWords(group);
    const plain = words.filter((word) => word.type !== 'command');
    commands.push(...words.filter((word) => word.type === 'command'));
    const text = wrapWebui(renderPrompt(plain, [], {}, 'webui'), group.groupLv);
    if (text !== '') positive.push(text);
    const egText = wrapWebui(
      renderPrompt(enabled(listOf(group, 'negative').items).map(asPositive), [], {}, 'webui'),
      group.groupLv,
    );
    if (egText !== '') negative.push(egText);
  }
  const commandText = renderPrompt(commands, [], {}, 'webui');
  if (commandText !== '') positive.push(commandText);
  return { prompt: positive.join(', '), negativePrompt: negative.join(', ') };
}

/** A negative word rendered as a word of the web-UI negative prompt. */
function asPositive(word: Word): Word {
  return { ...word, isEg: false, subType: 'normal' };
}

function scaled(word: Word, groupLv: number): Word {
  if (groupLv === LV_DEFAULT || word.type === 'command') return word;
  return { ...word, lv: roundLv(word.lv * groupLv) };
}

function renderBot(groups: readonly Group[]): RenderedPrompt {
  const words = groups.flatMap((group) => positiveWords(group).map((word) => scaled(word, group.groupLv)));
  const egWords = groups.flatMap((group) => enabled(listOf(group, 'negative').items));
  return { prompt: renderPrompt(words, egWords, {}, 'bot'), negativePrompt: '' };
}
