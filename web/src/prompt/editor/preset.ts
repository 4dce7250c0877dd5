// The prompt editor's preset and group (spec 1 §3) and every edit the editor
// makes to them, as pure functions: each takes a preset and returns a new one
// (the same object when the edit changes nothing, so a state library can skip
// a re-render), never mutating its input. The output text is re-rendered after
// every edit, so `preset.output` always matches the groups.

import type { Dialect, Word, WordSubType } from '../types';
import { DIALECTS, newWord } from '../index';
import {
  classifyWords,
  emptyLists,
  fitWordToList,
  listOf,
  listTypeOfWord,
  type ListType,
  type WordList,
} from './lists';
import { parseForEditor, renderPreset } from './render';
import { clampLv, LV_DEFAULT, stepLevelOf, stepLv, type StepDirection } from './weight';

/** Spec 1 §3: the name a new preset gets. */
export const UNTITLED = 'untitled';

/** The dialect a new preset parses with. */
export const DEFAULT_DIALECT: Dialect = 'webui';

/** A group of words with its own weight level, applied around all its words (spec 1 §3). */
export interface Group {
  /** Unique within its preset (`g1`, `g2`, ...); stable while the group lives, so UI keys survive reordering. */
  readonly id: string;
  /** The group's weight level, 1 by default: rendered as an outer weight around the group's words. */
  readonly groupLv: number;
  /** Exactly five lists, one per type, in the order of `LIST_TYPES` (codes 6..10). */
  readonly lists: readonly WordList[];
}

/** A saved prompt-editor state (spec 1 §3). */
export interface Preset {
  /** Creation time in milliseconds since the epoch (spec 1 §3: the id defaults to creation time). */
  readonly id: number;
  /** Shown in the preset menu; 'untitled' by default and whenever a rename leaves it blank. */
  readonly name: string;
  /** The text the user typed or imported, in the preset's dialect; parsed into the groups. */
  readonly input: string;
  /** The positive prompt rendered from the groups (see `renderPreset` for the negative prompt). */
  readonly output: string;
  /** The dialect `input` is parsed with and `output` rendered in. */
  readonly parser: Dialect;
  /** At least one group, in render order. */
  readonly groups: readonly Group[];
  /** Dictionary terms the user added from the dictionary pad, in the order added, no two equal ignoring case. */
  readonly dictTerms: readonly string[];
}

/** Where a word sits: used by drag and drop, which knows indices rather than ids. */
export interface WordLocation {
  readonly groupId: string;
  readonly list: ListType;
  /** Index in the list; for a drop target, the index the word will have after the move (clamped to the list). */
  readonly index: number;
}

/** Where `addWords` puts words: a group (default the first) and a list (default: by each word's sub-type). */
export interface AddTarget {
  readonly groupId?: string;
  readonly list?: ListType;
}

/** A group with five empty lists. */
export function createGroup(id: string, groupLv: number = LV_DEFAULT): Group {
  return { id, groupLv: clampLv(groupLv), lists: emptyLists() };
}

/** A fresh preset: id = `now`, name 'untitled', empty input and output, web-UI dialect, one empty group, no terms. */
export function createPreset(now: number = Date.now()): Preset {
  return {
    id: now,
    name: UNTITLED,
    input: '',
    output: '',
    parser: DEFAULT_DIALECT,
    groups: [createGroup('g1')],
    dictTerms: [],
  };
}

/**
 * A new word with every field at its default (like protocol's `Word::new`):
 * weight 1, not disabled, `isEg` when the sub-type is `eg`, id empty until
 * `addWords` gives it one.
 */
export function createWord(rawText: string, subType: WordSubType = 'normal'): Word {
  return newWord('word', subType, rawText);
}

// ---------------------------------------------------------------------------
// Reading

/** Every word of the preset, group by group and list by list. */
export function allWords(preset: Preset): Word[] {
  return preset.groups.flatMap((group) => group.lists.flatMap((list) => list.items));
}

/** The location of the word with id `wordId`, or `null`. */
export function findWord(preset: Preset, wordId: string): (WordLocation & { word: Word }) | null {
  for (const group of preset.groups) {
    for (const list of group.lists) {
      const index = list.items.findIndex((word) => word.id === wordId);
      const word = list.items[index];
      if (word !== undefined) return { groupId: group.id, list: list.type, index, word };
    }
  }
  return null;
}

// ---------------------------------------------------------------------------
// Ids and duplicates

/**
 * The id a word with `rawText` gets next to the ids in `taken`, by the parsers'
 * rule (protocol `assign_ids`): `rawText` for the first, `rawText#n` for the
 * n-th duplicate, where n counts the words with the same raw text already
 * present, skipping any id already taken.
 */
export function nextWordId(rawText: string, sameRawCount: number, taken: ReadonlySet<string>): string {
  let n = sameRawCount;
  let id = n === 0 ? rawText : `${rawText}#${n}`;
  while (taken.has(id)) {
    n += 1;
    id = `${rawText}#${n}`;
  }
  return id;
}

/**
 * Gives `incoming` ids unique among themselves and `existing`: the duplicate
 * counter continues from the words already in the preset, so adding "cat" to
 * a preset holding "cat" gives "cat#1". A word with empty raw text (a new
 * empty word) is keyed by `now` instead (spec 1 §3: text plus a timestamp).
 */
export function assignWordIds(existing: readonly Word[], incoming: readonly Word[], now: number = Date.now()): Word[] {
  const taken = new Set(existing.map((word) => word.id));
  const counts = new Map<string, number>();
  for (const word of existing) counts.set(word.rawText, (counts.get(word.rawText) ?? 0) + 1);
  return incoming.map((word) => {
    const base = word.rawText === '' ? String(now) : word.rawText;
    const id = nextWordId(base, counts.get(base) ?? 0, taken);
    taken.add(id);
    counts.set(base, (counts.get(base) ?? 0) + 1);
    return word.id === id ? word : { ...word, id };
  });
}

/** How many words of the preset share this word's raw text (1 when it is unique): the duplicate badge. */
export function duplicateCount(preset: Preset, rawText: string): number {
  return allWords(preset).filter((word) => word.rawText === rawText).length;
}

// ---------------------------------------------------------------------------
// Internal helpers

/** Replaces the groups (or other fields) and re-renders the output. */
function commit(preset: Preset, changes: Partial<Omit<Preset, 'output'>>): Preset {
  const next = { ...preset, ...changes };
  return { ...next, output: renderPreset(next).prompt };
}

function mapGroups(preset: Preset, fn: (group: Group) => Group): Preset {
  let changed = false;
  const groups = preset.groups.map((group) => {
    const next = fn(group);
    if (next !== group) changed = true;
    return next;
  });
  return changed ? commit(preset, { groups }) : preset;
}

function mapLists(group: Group, fn: (list: WordList) => WordList): Group {
  let changed = false;
  const lists = group.lists.map((list) => {
    const next = fn(list);
    if (next !== list) changed = true;
    return next;
  });
  return changed ? { ...group, lists } : group;
}

/** Applies `fn` to the word with id `wordId` wherever it is; the same preset when absent or unchanged. */
function mapWord(preset: Preset, wordId: string, fn: (word: Word) => Word): Preset {
  return mapGroups(preset, (group) =>
    mapLists(group, (list) => {
      const index = list.items.findIndex((word) => word.id === wordId);
      const word = list.items[index];
      if (word === undefined) return list;
      const next = fn(word);
      if (next === word) return list;
      return { ...list, items: list.items.map((item, i) => (i === index ? next : item)) };
    }),
  );
}

function withLv(word: Word, lv: number): Word {
  const next = clampLv(lv);
  if (next === word.lv) return word;
  return { ...word, lv: next, alv: stepLevelOf(next) };
}

/**
 * The disable-all rule (spec 1 §5): if every word is disabled, enable all;
 * otherwise disable all. An empty set has nothing to change.
 */
export function disableAllTarget(words: readonly Word[]): boolean | null {
  if (words.length === 0) return null;
  return !words.every((word) => word.disabled);
}

function setDisabled(list: WordList, disabled: boolean): WordList {
  if (list.items.every((word) => word.disabled === disabled)) return list;
  return { ...list, items: list.items.map((word) => (word.disabled === disabled ? word : { ...word, disabled })) };
}

// ---------------------------------------------------------------------------
// Preset-level edits

/** Renames; a blank name becomes 'untitled'. */
export function renamePreset(preset: Preset, name: string): Preset {
  const next = name.trim() === '' ? UNTITLED : name.trim();
  return next === preset.name ? preset : { ...preset, name: next };
}

/**
 * Sets the input text and parses it with the preset's dialect into a single
 * fresh group (replacing the groups: the input is the source of truth when it
 * is edited). Dictionary terms are kept.
 */
export function setInput(preset: Preset, input: string): Preset {
  const parsed = parseForEditor(input, preset.parser);
  const group: Group = { ...createGroup('g1'), lists: classifyWords(assignWordIds([], [...parsed.words, ...parsed.egWords])) };
  return commit(preset, { input, groups: [group] });
}

/**
 * Changes the dialect. A non-blank input is re-parsed with the new dialect
 * (replacing the groups, as `setInput` does); with a blank input the groups,
 * which may have been built from the dictionary, are kept and only the output
 * is re-rendered in the new dialect. An unknown dialect is refused (the same
 * preset is returned).
 */
export function setParser(preset: Preset, parser: Dialect): Preset {
  if (!DIALECTS.includes(parser) || parser === preset.parser) return preset;
  const switched = { ...preset, parser };
  if (preset.input.trim() === '') return commit(switched, {});
  return setInput(switched, preset.input);
}

/**
 * Imports an initial prompts list (the editor's `prompts` URL parameter, see
 * url.ts): each non-blank prompt is parsed with the preset's dialect into a
 * group of its own, so prompts from different sources keep separate group
 * weights; the first prompt fills the first group when that group is empty.
 * The input text is left as it is.
 */
export function importPrompts(preset: Preset, prompts: readonly string[], now: number = Date.now()): Preset {
  let next = preset;
  for (const prompt of prompts) {
    if (prompt.trim() === '') continue;
    const first = next.groups[0];
    const reuse = next === preset && first !== undefined && first.lists.every((list) => list.items.length === 0);
    const withGroup = reuse ? next : addGroup(next);
    const target = reuse ? first : withGroup.groups[withGroup.groups.length - 1];
    next = addText(withGroup, prompt, target === undefined ? {} : { groupId: target.id }, now);
  }
  return next;
}

// ---------------------------------------------------------------------------
// Words

/**
 * Adds words at the end of their lists in one group (default the first). Each
 * word goes to `target.list` when given, else to the list its sub-type names
 * (negative words to the negative list), with `subType`/`isEg` fitted to that
 * list. Ids continue the preset's duplicate counter (a second "cat" is
 * "cat#1"). An unknown group id adds nothing.
 */
export function addWords(preset: Preset, words: readonly Word[], target: AddTarget = {}, now: number = Date.now()): Preset {
  if (words.length === 0) return preset;
  const groupId = target.groupId ?? preset.groups[0]?.id;
  if (groupId === undefined || !preset.groups.some((group) => group.id === groupId)) return preset;
  const placed = assignWordIds(allWords(preset), words, now).map((word) =>
    fitWordToList(word, target.list ?? listTypeOfWord(word)),
  );
  return mapGroups(preset, (group) =>
    group.id !== groupId
      ? group
      : mapLists(group, (list) => {
          const mine = placed.filter((word) => listTypeOfWord(word) === list.type);
          return mine.length === 0 ? list : { ...list, items: [...list.items, ...mine] };
        }),
  );
}

/** Parses `text` with the preset's dialect and adds its words and negative words (see `addWords`). */
export function addText(preset: Preset, text: string, target: AddTarget = {}, now: number = Date.now()): Preset {
  const parsed = parseForEditor(text, preset.parser);
  return addWords(preset, [...parsed.words, ...parsed.egWords], target, now);
}

/** Removes the word with id `wordId`. */
export function removeWord(preset: Preset, wordId: string): Preset {
  return mapGroups(preset, (group) =>
    mapLists(group, (list) =>
      list.items.some((word) => word.id === wordId)
        ? { ...list, items: list.items.filter((word) => word.id !== wordId) }
        : list,
    ),
  );
}

/** Sets a word's weight level (clamped into ±[LV_MIN, LV_MAX], two decimals; `alv` follows). */
export function setWordLv(preset: Preset, wordId: string, lv: number): Preset {
  return mapWord(preset, wordId, (word) => withLv(word, lv));
}

/** One press of + (`up`) or - (`down`) on a word's weight: times or divided by 1.1 (see `stepLv`). */
export function stepWordLv(preset: Preset, wordId: string, direction: StepDirection): Preset {
  return mapWord(preset, wordId, (word) => withLv(word, stepLv(word.lv, direction)));
}

/** Flips one word's disabled flag (a disabled word stays in its list but is left out of the output). */
export function toggleWord(preset: Preset, wordId: string): Preset {
  return mapWord(preset, wordId, (word) => ({ ...word, disabled: !word.disabled }));
}

/** Sets the fields that carry no list or identity meaning (translation, description, dictionary links). */
export function patchWord(
  preset: Preset,
  wordId: string,
  patch: Partial<Pick<Word, 'langText' | 'desc' | 'dir' | 'link' | 'isAlias' | 'group'>>,
): Preset {
  return mapWord(preset, wordId, (word) => {
    const keys = Object.keys(patch) as (keyof typeof patch)[];
    return keys.every((key) => word[key] === patch[key]) ? word : { ...word, ...patch };
  });
}

/** The disable-all toggle for one list (spec 1 §5): enable all if every word is disabled, else disable all. */
export function toggleList(preset: Preset, groupId: string, type: ListType): Preset {
  return mapGroups(preset, (group) => {
    if (group.id !== groupId) return group;
    const target = disableAllTarget(listOf(group, type).items);
    if (target === null) return group;
    return mapLists(group, (list) => (list.type === type ? setDisabled(list, target) : list));
  });
}

/** The disable-all toggle for a whole group, over all five lists: enable all if every word is disabled, else disable all. */
export function toggleGroup(preset: Preset, groupId: string): Preset {
  return mapGroups(preset, (group) => {
    if (group.id !== groupId) return group;
    const target = disableAllTarget(group.lists.flatMap((list) => list.items));
    if (target === null) return group;
    return mapLists(group, (list) => setDisabled(list, target));
  });
}

/**
 * Moves a word from one location to another: a reorder within a list, a move
 * to another list of the same group, or to a list of another group. The word
 * keeps every field except `subType`/`isEg`, which follow the target list.
 * `to.index` is the index the word has after the move, clamped to the target
 * list. A source that does not exist or an unknown target group changes nothing.
 */
export function moveWord(preset: Preset, from: WordLocation, to: WordLocation): Preset {
  const source = preset.groups.find((group) => group.id === from.groupId);
  const word = source === undefined ? undefined : listOf(source, from.list).items[from.index];
  if (word === undefined || !preset.groups.some((group) => group.id === to.groupId)) return preset;
  const moved = fitWordToList(word, to.list);
  const sameList = from.groupId === to.groupId && from.list === to.list;
  if (sameList && from.index === to.index) return preset;

  const groups = preset.groups.map((group) => {
    if (group.id !== from.groupId && group.id !== to.groupId) return group;
    return mapLists(group, (list) => {
      const isSource = group.id === from.groupId && list.type === from.list;
      const isTarget = group.id === to.groupId && list.type === to.list;
      if (!isSource && !isTarget) return list;
      const items = [...list.items];
      if (isSource) items.splice(from.index, 1);
      if (isTarget) items.splice(Math.max(0, Math.min(to.index, items.length)), 0, moved);
      return { ...list, items };
    });
  });
  return commit(preset, { groups });
}

/** Moves the word with id `wordId` to the end of list `list` (default: the same list type) of group `groupId`. */
export function moveWordToGroup(preset: Preset, wordId: string, groupId: string, list?: ListType): Preset {
  const at = findWord(preset, wordId);
  const target = preset.groups.find((group) => group.id === groupId);
  if (at === null || target === undefined) return preset;
  const type = list ?? at.list;
  const length = listOf(target, type).items.length;
  const index = at.groupId === groupId && at.list === type ? length - 1 : length;
  return moveWord(preset, at, { groupId, list: type, index });
}

/** Moves the word with id `wordId` to the end of another list of its own group. */
export function moveWordToList(preset: Preset, wordId: string, list: ListType): Preset {
  const at = findWord(preset, wordId);
  return at === null ? preset : moveWordToGroup(preset, wordId, at.groupId, list);
}

// ---------------------------------------------------------------------------
// Groups

/** Sets a group's weight level (clamped and rounded like a word's). */
export function setGroupLv(preset: Preset, groupId: string, lv: number): Preset {
  return mapGroups(preset, (group) => {
    if (group.id !== groupId) return group;
    const groupLv = clampLv(lv);
    return groupLv === group.groupLv ? group : { ...group, groupLv };
  });
}

/** One press of + or - on a group's weight level. */
export function stepGroupLv(preset: Preset, groupId: string, direction: StepDirection): Preset {
  const group = preset.groups.find((g) => g.id === groupId);
  return group === undefined ? preset : setGroupLv(preset, groupId, stepLv(group.groupLv, direction));
}

/** The first free group id (`g1`, `g2`, ...). */
export function nextGroupId(preset: Preset): string {
  const ids = new Set(preset.groups.map((group) => group.id));
  let n = 1;
  while (ids.has(`g${n}`)) n += 1;
  return `g${n}`;
}

/** Adds an empty group at `index` (default: the end). */
export function addGroup(preset: Preset, index: number = preset.groups.length): Preset {
  const groups = [...preset.groups];
  groups.splice(Math.max(0, Math.min(index, groups.length)), 0, createGroup(nextGroupId(preset)));
  return commit(preset, { groups });
}

/** Removes a group with its words; removing the only group leaves one empty group with the same id. */
export function removeGroup(preset: Preset, groupId: string): Preset {
  if (!preset.groups.some((group) => group.id === groupId)) return preset;
  const groups = preset.groups.filter((group) => group.id !== groupId);
  return commit(preset, { groups: groups.length > 0 ? groups : [createGroup(groupId)] });
}

/** Moves a group from index `from` to index `to` (clamped). */
export function moveGroup(preset: Preset, from: number, to: number): Preset {
  const group = preset.groups[from];
  const index = Math.max(0, Math.min(to, preset.groups.length - 1));
  if (group === undefined || index === from) return preset;
  const groups = preset.groups.filter((_, i) => i !== from);
  groups.splice(index, 0, group);
  return commit(preset, { groups });
}

// ---------------------------------------------------------------------------
// Dictionary terms

function termKey(term: string): string {
  return term.trim().toLowerCase();
}

/** True when the preset's term list holds `term` (trimmed, ignoring case: the dictionary is lower-cased). */
export function hasTerm(preset: Preset, term: string): boolean {
  const key = termKey(term);
  return preset.dictTerms.some((t) => termKey(t) === key);
}

/** Records a dictionary term (trimmed) at the end of the list; blank or already present changes nothing. */
export function addTerm(preset: Preset, term: string): Preset {
  const text = term.trim();
  if (text === '' || hasTerm(preset, text)) return preset;
  return { ...preset, dictTerms: [...preset.dictTerms, text] };
}

/** Forgets a dictionary term (compared trimmed, ignoring case). */
export function removeTerm(preset: Preset, term: string): Preset {
  if (!hasTerm(preset, term)) return preset;
  const key = termKey(term);
  return { ...preset, dictTerms: preset.dictTerms.filter((t) => termKey(t) !== key) };
}

