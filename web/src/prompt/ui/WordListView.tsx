import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { useT } from '../../i18n/useT';
import type { MessageKey } from '../../i18n/messages';
import { disableAllTarget, listOf, type Group, type ListType, type StepDirection, type WordLocation } from '../editor';
import type { MoveKey } from './model';
import type { ChipDrag } from './useChipDrag';
import type { BadgeOf } from './useTranslations';
import { WordChip } from './WordChip';

export const LIST_LABEL: Readonly<Record<ListType, MessageKey>> = {
  normal: 'promptEditor.list.normal',
  style: 'promptEditor.list.style',
  quality: 'promptEditor.list.quality',
  command: 'promptEditor.list.command',
  negative: 'promptEditor.list.negative',
};

/** What a list can do to its words; the editor turns each into an edit of the preset. */
export interface ListActions {
  toggleWord(wordId: string): void;
  stepWord(wordId: string, direction: StepDirection): void;
  removeWord(wordId: string): void;
  moveByKey(from: WordLocation, wordId: string, key: MoveKey): void;
  toggleList(groupId: string, list: ListType): void;
  addText(groupId: string, list: ListType, text: string): void;
}

export interface WordListViewProps {
  group: Group;
  type: ListType;
  actions: ListActions;
  drag: ChipDrag;
  badgeOf: BadgeOf;
}

/** One typed list of a group: its name, the disable-all toggle, the chips (a drop zone) and a field to add words. */
export function WordListView({ group, type, actions, drag, badgeOf }: WordListViewProps) {
  const t = useT();
  const inputId = useId();
  const [draft, setDraft] = useState('');
  const list = listOf(group, type);
  const label = t(LIST_LABEL[type]);
  const target = disableAllTarget(list.items);
  const dropHere = drag.drag?.target?.groupId === group.id && drag.drag.target.list === type ? drag.drag.target : null;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (draft.trim() === '') return;
    actions.addText(group.id, type, draft);
    setDraft('');
  }

  return (
    <section className={`word-list word-list--${type}${dropHere ? ' word-list--drop' : ''}`} aria-label={label} data-testid={`list-${type}`}>
      <header className="word-list__head">
        <h4 className="word-list__name">
          {label} <span className="word-list__count">{list.items.length}</span>
        </h4>
        <button
          type="button"
          className="word-list__toggle"
          disabled={target === null}
          aria-label={t('promptEditor.listToggleLabel', { list: label })}
          onClick={() => actions.toggleList(group.id, type)}
        >
          {target === false ? t('promptEditor.listToggleOn') : t('promptEditor.listToggleOff')}
        </button>
      </header>
      <ul className="word-list__chips" data-drop-list="" data-group-id={group.id} data-list={type}>
        {list.items.map((word, index) => {
          const at: WordLocation = { groupId: group.id, list: type, index };
          return (
            <WordChip
              key={word.id}
              word={word}
              at={at}
              badge={badgeOf(word)}
              dragging={drag.drag?.wordId === word.id}
              insertBefore={dropHere !== null && dropHere.index === index && drag.drag?.wordId !== word.id}
              onToggle={() => {
                if (!drag.consumeClick()) actions.toggleWord(word.id);
              }}
              onStep={(d) => actions.stepWord(word.id, d)}
              onRemove={() => actions.removeWord(word.id)}
              onMoveKey={(key) => actions.moveByKey(at, word.id, key)}
              onPointerDown={(e) => drag.onPointerDown(e, at, word.id, word.text)}
            />
          );
        })}
        {list.items.length === 0 && <li className="word-list__empty">{t('promptEditor.listEmpty')}</li>}
      </ul>
      <form className="word-list__add" onSubmit={submit}>
        <label className="visually-hidden" htmlFor={inputId}>
          {t('promptEditor.addWords', { list: label })}
        </label>
        <input
          id={inputId}
          className="word-list__input"
          value={draft}
          placeholder={t('promptEditor.addWordsPlaceholder')}
          onChange={(e) => setDraft(e.target.value)}
        />
      </form>
    </section>
  );
}
