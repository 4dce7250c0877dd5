import { useEffect, useMemo, useRef, useState } from 'react';
import { api as appApi } from '../../app/services';
import { useT } from '../../i18n/useT';
import { localeAtom } from '../../router/router';
import { useAtomValue } from '../../state/jotai';
import {
  addGroup,
  addTerm,
  addText,
  addWords,
  allWords,
  createWord,
  findWord,
  hasTerm,
  moveWord,
  removeGroup,
  removeWord,
  stepGroupLv,
  stepWordLv,
  toggleGroup,
  toggleList,
  toggleWord,
  type WordLocation,
} from '../editor';
import type { Dialect, WordSubType } from '../types';
import type { Definition, Poster } from './api';
import { DictionaryPad } from './DictionaryPad';
import { GroupView, type GroupActions } from './GroupView';
import { keyboardTarget, textsOf } from './model';
import { PresetBar } from './PresetBar';
import { RawTextView } from './RawTextView';
import { useChipDrag } from './useChipDrag';
import { useDictionaryShown } from './useDictionaryShown';
import { usePromptEditor } from './usePromptEditor';
import { useTranslations } from './useTranslations';
import { LIST_LABEL } from './WordListView';
import './promptEditor.css';

export interface PromptEditorProps {
  /** The positive prompt. */
  value: string;
  /** The negative prompt (web UI; in the bot dialect negatives live in the prompt as `--no`). */
  negative: string;
  /** Called with the re-rendered texts after every edit. */
  onChange(prompt: string, negative: string): void;
  /** The dialect; when it changes the words are kept and re-rendered. Default: the preset's (web UI). */
  dialect?: Dialect;
  /** The API client (default: the app's). */
  api?: Poster;
  /** Read and remove the `prompts` URL parameter on mount (default true). */
  readUrl?: boolean;
  /** With empty texts on mount, hand the stored preset to the owner (default false: show an empty preset). */
  restore?: boolean;
}

function subTypeOf(definition: Definition): WordSubType {
  const s = definition.subType;
  return s === 'style' || s === 'quality' || s === 'command' || s === 'eg' ? s : 'normal';
}

/**
 * The prompt editor (spec 1 §2, §3, §5): words as chips in groups and five
 * typed lists, presets, both dialects, the raw text, the dictionary pad and
 * translation badges. Controlled through `value`, `negative` and `onChange`.
 */
export function PromptEditor(props: PromptEditorProps) {
  const t = useT();
  const api = props.api ?? appApi;
  const locale = useAtomValue(localeAtom);
  const [announcement, setAnnouncement] = useState('');
  const editor = usePromptEditor({
    value: props.value,
    negative: props.negative,
    onChange: props.onChange,
    ...(props.dialect === undefined ? {} : { dialect: props.dialect }),
    readUrl: props.readUrl ?? true,
    restore: props.restore ?? false,
    onImported: (n) => setAnnouncement(t('promptEditor.importedPrompts', { n })),
  });
  const { preset, edit } = editor;
  const [dictionaryShown, toggleDictionary] = useDictionaryShown();
  // Mounted the first time it is shown, then only hidden, so its terms are not fetched again.
  const [padMounted, setPadMounted] = useState(dictionaryShown);
  if (dictionaryShown && !padMounted) setPadMounted(true);
  const words = useMemo(() => allWords(preset), [preset]);
  const badgeOf = useTranslations(words, locale, api);
  const texts = useMemo(() => textsOf(preset), [preset]);

  // After a keyboard move the chip is re-mounted in its new list: focus follows it.
  const focusAfterMove = useRef<string | null>(null);
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const id = focusAfterMove.current;
    if (id === null) return;
    focusAfterMove.current = null;
    const chip = [...(root.current?.querySelectorAll<HTMLElement>('[data-word-id]') ?? [])].find((el) => el.dataset.wordId === id);
    chip?.querySelector<HTMLElement>('.chip__label')?.focus();
  }, [preset]);

  function move(from: WordLocation, to: WordLocation, wordId: string) {
    edit((p) => moveWord(p, from, to));
    const word = findWord(preset, wordId)?.word;
    if (word) setAnnouncement(t('promptEditor.wordMoved', { text: word.text, list: t(LIST_LABEL[to.list]), n: to.index + 1 }));
  }

  const drag = useChipDrag((from, to) => {
    const id = preset.groups.find((g) => g.id === from.groupId)?.lists.find((l) => l.type === from.list)?.items[from.index]?.id;
    if (id !== undefined) move(from, to, id);
  });

  const actions: GroupActions = {
    toggleWord: (id) => edit((p) => toggleWord(p, id)),
    stepWord: (id, d) => edit((p) => stepWordLv(p, id, d)),
    removeWord: (id) => edit((p) => removeWord(p, id)),
    moveByKey: (from, id, key) => {
      const to = keyboardTarget(preset, from, key);
      if (to === null) return;
      focusAfterMove.current = id;
      move(from, to, id);
    },
    toggleList: (g, l) => edit((p) => toggleList(p, g, l)),
    addText: (g, l, text) => edit((p) => addText(p, text, { groupId: g, list: l })),
    stepGroup: (g, d) => edit((p) => stepGroupLv(p, g, d)),
    toggleGroup: (g) => edit((p) => toggleGroup(p, g)),
    removeGroup: (g) => edit((p) => removeGroup(p, g)),
  };

  function addDefinition(d: Definition) {
    edit((p) => addTerm(addWords(p, [createWord(d.text, subTypeOf(d))]), d.text));
  }

  return (
    <div ref={root} className={`prompt-editor${dictionaryShown ? ' prompt-editor--with-pad' : ''}`} role="region" aria-label={t('promptEditor.region')}>
      <div className="prompt-editor__main">
        <PresetBar
          preset={preset}
          presets={editor.presets}
          dictionaryShown={dictionaryShown}
          onSwitch={editor.switchTo}
          onNew={editor.newPreset}
          onRename={editor.rename}
          onDialect={editor.setDialect}
          onToggleDictionary={toggleDictionary}
        />
        {preset.groups.map((group, i) => (
          <GroupView
            key={group.id}
            group={group}
            number={i + 1}
            removable={preset.groups.length > 1}
            actions={actions}
            drag={drag}
            badgeOf={badgeOf}
          />
        ))}
        <button type="button" className="button button--small prompt-editor__add-group" onClick={() => edit((p) => addGroup(p))}>
          {t('promptEditor.groupAdd')}
        </button>
        <RawTextView texts={texts} dialect={preset.parser} onInput={editor.loadTexts} />
      </div>
      {padMounted && (
        <DictionaryPad
          api={api}
          language={locale}
          hidden={!dictionaryShown}
          isAdded={(term) => hasTerm(preset, term)}
          onAdd={addDefinition}
        />
      )}
      {drag.drag !== null && (
        <div className="chip chip--ghost" style={{ left: drag.drag.x, top: drag.drag.y }} aria-hidden="true">
          {drag.drag.text}
        </div>
      )}
      <p className="visually-hidden" role="status" aria-live="polite">
        {announcement}
      </p>
    </div>
  );
}
