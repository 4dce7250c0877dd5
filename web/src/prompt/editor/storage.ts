// Saving the prompt editor's presets to a `localStorage`-like store and
// reading them back. Stored data outlives code versions and can be edited by
// hand, so reading validates every field, repairs what it can (defaults,
// clamped weights, unique ids, the five lists) and drops what it cannot,
// logging each repair; it never throws and always returns at least one preset.

import { DIALECTS, type Dialect, type Word, type WordSubType, type WordType } from '../types';
import { displayName } from './display';
import { fitWordToList, LIST_CODES, LIST_TYPES, listTypeOfCode, isListType, type ListType, type WordList } from './lists';
import { createGroup, createPreset, DEFAULT_DIALECT, nextWordId, UNTITLED, type Group, type Preset } from './preset';
import { renderPreset } from './render';
import { clampLv, LV_DEFAULT, stepLevelOf } from './weight';

/** The storage key of the presets. */
export const PRESETS_STORAGE_KEY = 'easel.prompt.presets';

/** Bumped when the stored shape changes incompatibly; other versions are read as corrupt. */
export const PRESETS_STORAGE_VERSION = 1;

/** The part of the Web Storage API used here (`window.localStorage` fits; tests pass a Map-backed fake). */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** The stored document: a version tag so a future shape can be told apart. */
interface StoredPresets {
  version: number;
  presets: Preset[];
}

/**
 * Writes the presets (outputs included, for other readers; they are
 * re-rendered on load anyway). A failing store (quota exceeded, storage
 * disabled) is logged and reported as `false`; nothing throws.
 */
export function savePresets(storage: KeyValueStorage, presets: readonly Preset[]): boolean {
  const doc: StoredPresets = { version: PRESETS_STORAGE_VERSION, presets: [...presets] };
  try {
    storage.setItem(PRESETS_STORAGE_KEY, JSON.stringify(doc));
    return true;
  } catch (error) {
    console.warn('prompt editor: cannot save the presets', error);
    return false;
  }
}

/**
 * Reads the presets. Nothing stored gives one fresh preset, silently; an
 * unreadable document (bad JSON, wrong version, wrong shape) gives one fresh
 * preset and a warning; presets that cannot be repaired are dropped with a
 * warning, and if none is left a fresh one is returned. Presets with the same
 * id keep the first.
 */
export function loadPresets(storage: KeyValueStorage, now: number = Date.now()): Preset[] {
  let raw: string | null;
  try {
    raw = storage.getItem(PRESETS_STORAGE_KEY);
  } catch (error) {
    console.warn('prompt editor: cannot read the stored presets', error);
    return [createPreset(now)];
  }
  if (raw === null) return [createPreset(now)];

  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch (error) {
    console.warn('prompt editor: the stored presets are not JSON; starting fresh', error);
    return [createPreset(now)];
  }
  if (!isRecord(doc) || doc.version !== PRESETS_STORAGE_VERSION || !Array.isArray(doc.presets)) {
    console.warn('prompt editor: the stored presets have an unknown shape; starting fresh');
    return [createPreset(now)];
  }

  const presets: Preset[] = [];
  const seen = new Set<number>();
  (doc.presets as unknown[]).forEach((value, index) => {
    const preset = decodePreset(value, now);
    if (preset === null) {
      console.warn(`prompt editor: dropped stored preset #${index}, it cannot be read`);
    } else if (!seen.has(preset.id)) {
      seen.add(preset.id);
      presets.push(preset);
    }
  });
  return presets.length > 0 ? presets : [createPreset(now)];
}

/**
 * One stored preset, repaired: `null` when it is not an object with a
 * numeric id or groups. Missing or invalid fields take their defaults (name
 * 'untitled', web-UI dialect, empty texts and terms); groups get the five
 * lists; words get defaults, clamped weights, and ids unique in the preset;
 * the output is re-rendered from the groups.
 */
export function decodePreset(value: unknown, now: number = Date.now()): Preset | null {
  if (!isRecord(value)) return null;
  const id = value.id;
  if (typeof id !== 'number' || !Number.isFinite(id) || !Array.isArray(value.groups)) return null;

  const taken = new Set<string>();
  const counts = new Map<string, number>();
  const groups: Group[] = [];
  for (const stored of value.groups as unknown[]) {
    const group = decodeGroup(stored, groups, taken, counts, now);
    if (group !== null) groups.push(group);
  }
  const parser: Dialect = isDialect(value.parser) ? value.parser : DEFAULT_DIALECT;
  const preset: Preset = {
    id,
    name: typeof value.name === 'string' && value.name.trim() !== '' ? value.name : UNTITLED,
    input: typeof value.input === 'string' ? value.input : '',
    output: '',
    parser,
    groups: groups.length > 0 ? groups : [createGroup('g1')],
    dictTerms: decodeTerms(value.dictTerms),
  };
  return { ...preset, output: renderPreset(preset).prompt };
}

function decodeGroup(
  value: unknown,
  earlier: readonly Group[],
  taken: Set<string>,
  counts: Map<string, number>,
  now: number,
): Group | null {
  if (!isRecord(value)) return null;
  const usedIds = new Set(earlier.map((group) => group.id));
  let id = typeof value.id === 'string' && value.id !== '' && !usedIds.has(value.id) ? value.id : '';
  if (id === '') {
    let n = 1;
    while (usedIds.has(`g${n}`)) n += 1;
    id = `g${n}`;
  }
  const groupLv = typeof value.groupLv === 'number' ? clampLv(value.groupLv) : LV_DEFAULT;

  const byType = new Map<ListType, Word[]>(LIST_TYPES.map((type) => [type, []]));
  const storedLists: unknown[] = Array.isArray(value.lists) ? (value.lists as unknown[]) : [];
  for (const stored of storedLists) {
    if (!isRecord(stored) || !Array.isArray(stored.items)) continue;
    const type = isListType(stored.type)
      ? stored.type
      : typeof stored.code === 'number'
        ? listTypeOfCode(stored.code)
        : null;
    if (type === null) continue;
    for (const item of stored.items as unknown[]) {
      const word = decodeWord(item);
      if (word === null) continue;
      const base = word.rawText === '' ? String(now) : word.rawText;
      const keep = word.id !== '' && !taken.has(word.id);
      const wordId = keep ? word.id : nextWordId(base, counts.get(base) ?? 0, taken);
      taken.add(wordId);
      counts.set(base, (counts.get(base) ?? 0) + 1);
      byType.get(type)?.push(fitWordToList({ ...word, id: wordId }, type));
    }
  }
  const lists: WordList[] = LIST_TYPES.map((type) => ({ type, code: LIST_CODES[type], items: byType.get(type) ?? [] }));
  return { id, groupLv, lists };
}

const WORD_TYPES: readonly WordType[] = ['word', 'lora', 'lyco', 'hypernet', 'embedding', 'extra', 'editing', 'command'];
const SUB_TYPES: readonly WordSubType[] = ['normal', 'style', 'quality', 'command', 'eg'];

/** A stored word with defaults filled in; `null` without a string `rawText` (or, failing that, `text`). */
export function decodeWord(value: unknown): Word | null {
  if (!isRecord(value)) return null;
  const rawText = typeof value.rawText === 'string' ? value.rawText : typeof value.text === 'string' ? value.text : null;
  if (rawText === null) return null;
  const lv = typeof value.lv === 'number' ? clampLv(value.lv) : LV_DEFAULT;
  const subType = SUB_TYPES.find((t) => t === value.subType) ?? 'normal';
  return {
    id: str(value.id),
    text: typeof value.text === 'string' ? displayName(value.text) : displayName(rawText),
    rawText,
    langText: str(value.langText),
    type: WORD_TYPES.find((t) => t === value.type) ?? 'word',
    subType,
    isEg: typeof value.isEg === 'boolean' ? value.isEg : subType === 'eg',
    group: typeof value.group === 'number' && Number.isFinite(value.group) ? value.group : 0,
    lv,
    alv: stepLevelOf(lv),
    desc: str(value.desc),
    dir: str(value.dir),
    link: str(value.link),
    args: Array.isArray(value.args) ? (value.args as unknown[]).filter((a): a is string => typeof a === 'string') : [],
    disabled: value.disabled === true,
    isAlias: value.isAlias === true,
  };
}

function decodeTerms(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const out: string[] = [];
  const keys = new Set<string>();
  for (const term of value as unknown[]) {
    if (typeof term !== 'string' || term.trim() === '') continue;
    const key = term.trim().toLowerCase();
    if (keys.has(key)) continue;
    keys.add(key);
    out.push(term.trim());
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isDialect(value: unknown): value is Dialect {
  return typeof value === 'string' && (DIALECTS as readonly string[]).includes(value);
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
