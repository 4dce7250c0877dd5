// The prompt editor's state: the stored presets, the active one, every edit
// as a pure function of ../editor applied to it, the two texts handed to the
// owner through onChange, and the owner's texts loaded back when they change
// from outside. Presets are saved to localStorage after each edit.

import { useCallback, useEffect, useRef, useState } from 'react';
import type { Dialect } from '../types';
import {
  allWords,
  createPreset,
  importPrompts,
  loadPresets,
  readPromptsParam,
  renamePreset,
  savePresets,
  type KeyValueStorage,
  type Preset,
} from '../editor';
import { presetFromTexts, rendersTo, switchDialect, textsOf, type PromptTexts } from './model';

/** The storage key of the active preset's id. */
export const ACTIVE_PRESET_KEY = 'easel.prompt.activePreset';

interface State {
  presets: readonly Preset[];
  activeId: number;
}

function storage(): KeyValueStorage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function initialState(): State {
  const store = storage();
  const presets = store === null ? [createPreset()] : loadPresets(store);
  const saved = Number(store?.getItem(ACTIVE_PRESET_KEY) ?? NaN);
  const active = presets.find((p) => p.id === saved) ?? presets[0];
  return { presets, activeId: active?.id ?? 0 };
}

function persist(state: State): void {
  const store = storage();
  if (store === null) return;
  savePresets(store, state.presets);
  try {
    store.setItem(ACTIVE_PRESET_KEY, String(state.activeId));
  } catch {
    // Same as savePresets: a full store is not worth breaking the editor for.
  }
}

function activeOf(state: State): Preset {
  return state.presets.find((p) => p.id === state.activeId) ?? state.presets[0] ?? createPreset();
}

function isEmpty(preset: Preset): boolean {
  return allWords(preset).length === 0;
}

/** A preset id (creation time) not used yet. */
function freeId(state: State): number {
  let id = Date.now();
  while (state.presets.some((p) => p.id === id)) id += 1;
  return id;
}

export interface EditorOptions {
  value: string;
  negative: string;
  onChange(prompt: string, negative: string): void;
  dialect?: Dialect;
  /** Reads and removes the `prompts` URL parameter on mount (default true). */
  readUrl?: boolean;
  /**
   * When the owner starts with empty texts: true hands the stored active
   * preset to the owner (the standalone page); false (default) shows an empty
   * preset instead, so the owner's texts stay the truth.
   */
  restore?: boolean;
  /** Called with how many prompts the URL parameter brought. */
  onImported?(count: number): void;
}

export interface EditorApi {
  preset: Preset;
  presets: readonly Preset[];
  /** Applies an edit of ../editor to the active preset (and tells the owner when the texts change). */
  edit(fn: (preset: Preset) => Preset): void;
  switchTo(id: number): void;
  newPreset(): void;
  rename(name: string): void;
  setDialect(dialect: Dialect): void;
  /** Loads texts typed in the raw view. */
  loadTexts(prompt: string, negative: string): void;
}

export function usePromptEditor(options: EditorOptions): EditorApi {
  const [state, setState] = useState<State>(initialState);
  const stateRef = useRef(state);
  const onChangeRef = useRef(options.onChange);
  const onImportedRef = useRef(options.onImported);
  useEffect(() => {
    onChangeRef.current = options.onChange;
    onImportedRef.current = options.onImported;
  });
  /** The texts the owner has (last sent or last received), to tell its own echo from an outside change. */
  const ownerTexts = useRef<PromptTexts>({ prompt: options.value, negative: options.negative });

  const commit = useCallback((next: State, emit: boolean) => {
    stateRef.current = next;
    setState(next);
    persist(next);
    if (!emit) return;
    const texts = textsOf(activeOf(next));
    if (texts.prompt === ownerTexts.current.prompt && texts.negative === ownerTexts.current.negative) return;
    ownerTexts.current = texts;
    onChangeRef.current(texts.prompt, texts.negative);
  }, []);

  const replaceActive = useCallback(
    (fn: (preset: Preset) => Preset, emit: boolean) => {
      const cur = stateRef.current;
      const active = activeOf(cur);
      const next = fn(active);
      if (next === active) return;
      commit({ ...cur, presets: cur.presets.map((p) => (p.id === active.id ? next : p)) }, emit);
    },
    [commit],
  );

  const edit = useCallback((fn: (preset: Preset) => Preset) => replaceActive(fn, true), [replaceActive]);

  // The owner's texts, when they change from outside (not our own echo).
  const { value, negative } = options;
  useEffect(() => {
    if (value === ownerTexts.current.prompt && negative === ownerTexts.current.negative) return;
    ownerTexts.current = { prompt: value, negative };
    replaceActive((p) => (rendersTo(p, value, negative) ? p : presetFromTexts(p, value, negative)), false);
  }, [value, negative, replaceActive]);

  // Once on mount: the owner's texts win over the stored preset; with none,
  // the stored preset is handed to the owner; then the `prompts` parameter.
  const readUrl = options.readUrl ?? true;
  const restore = options.restore ?? false;
  const mounted = useRef(false);
  useEffect(() => {
    if (mounted.current) return;
    mounted.current = true;
    const { prompt, negative: neg } = ownerTexts.current;
    const cur = stateRef.current;
    if (prompt.trim() !== '' || neg.trim() !== '') {
      replaceActive((p) => (rendersTo(p, prompt, neg) ? p : presetFromTexts(p, prompt, neg)), false);
    } else if (restore) {
      commit(cur, true);
    } else if (!isEmpty(activeOf(cur))) {
      // The owner starts empty: show an empty preset, keeping the stored work in its own preset.
      const empty = cur.presets.find(isEmpty);
      if (empty !== undefined) commit({ ...cur, activeId: empty.id }, false);
      else {
        const fresh = { ...createPreset(freeId(cur)), parser: activeOf(cur).parser };
        commit({ presets: [...cur.presets, fresh], activeId: fresh.id }, false);
      }
    }
    if (!readUrl) return;
    const url = new URL(window.location.href);
    const { prompts, cleanedUrl } = readPromptsParam(url);
    if (cleanedUrl.href !== url.href) {
      window.history.replaceState(window.history.state, '', `${cleanedUrl.pathname}${cleanedUrl.search}${cleanedUrl.hash}`);
    }
    if (prompts !== null && prompts.some((p) => p.trim() !== '')) {
      replaceActive((p) => importPrompts(p, prompts), true);
      onImportedRef.current?.(prompts.filter((p) => p.trim() !== '').length);
    }
  }, [readUrl, restore, replaceActive, commit]);

  // A dialect chosen by the owner.
  const { dialect } = options;
  useEffect(() => {
    if (dialect !== undefined) replaceActive((p) => switchDialect(p, dialect), true);
  }, [dialect, replaceActive]);

  const switchTo = useCallback(
    (id: number) => {
      const cur = stateRef.current;
      if (id === cur.activeId || !cur.presets.some((p) => p.id === id)) return;
      commit({ ...cur, activeId: id }, true);
    },
    [commit],
  );

  const newPreset = useCallback(() => {
    const cur = stateRef.current;
    const fresh = { ...createPreset(freeId(cur)), parser: activeOf(cur).parser };
    commit({ presets: [...cur.presets, fresh], activeId: fresh.id }, true);
  }, [commit]);

  const rename = useCallback((name: string) => replaceActive((p) => renamePreset(p, name), false), [replaceActive]);
  const setDialect = useCallback((d: Dialect) => edit((p) => switchDialect(p, d)), [edit]);
  const loadTexts = useCallback(
    (prompt: string, neg: string) => edit((p) => presetFromTexts(p, prompt, neg)),
    [edit],
  );

  return { preset: activeOf(state), presets: state.presets, edit, switchTo, newPreset, rename, setDialect, loadTexts };
}
