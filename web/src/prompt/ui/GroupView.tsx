import { useT } from '../../i18n/useT';
import { disableAllTarget, displayWeight, LIST_TYPES, type Group, type StepDirection } from '../editor';
import type { ChipDrag } from './useChipDrag';
import type { BadgeOf } from './useTranslations';
import { WordListView, type ListActions } from './WordListView';

export interface GroupActions extends ListActions {
  stepGroup(groupId: string, direction: StepDirection): void;
  toggleGroup(groupId: string): void;
  removeGroup(groupId: string): void;
}

export interface GroupViewProps {
  group: Group;
  number: number;
  removable: boolean;
  actions: GroupActions;
  drag: ChipDrag;
  badgeOf: BadgeOf;
}

/** A group: its number, level (shown when not 1) with - and +, on/off for all its words, and its five lists. */
export function GroupView({ group, number, removable, actions, drag, badgeOf }: GroupViewProps) {
  const t = useT();
  const title = t('promptEditor.group', { n: number });
  const weight = displayWeight(group.groupLv);
  const target = disableAllTarget(group.lists.flatMap((list) => list.items));
  return (
    <section className="prompt-group" aria-label={title} data-testid={`group-${group.id}`}>
      <header className="prompt-group__head">
        <h3 className="prompt-group__title">{title}</h3>
        <div className="prompt-group__level" role="group" aria-label={t('promptEditor.groupWeight')}>
          <button type="button" className="chip__tool" aria-label={`${t('promptEditor.groupWeight')} −`} onClick={() => actions.stepGroup(group.id, 'down')}>
            −
          </button>
          <span className="prompt-group__lv" data-testid="group-weight">{weight ?? '1'}</span>
          <button type="button" className="chip__tool" aria-label={`${t('promptEditor.groupWeight')} +`} onClick={() => actions.stepGroup(group.id, 'up')}>
            +
          </button>
        </div>
        <button
          type="button"
          className="word-list__toggle"
          disabled={target === null}
          aria-label={t('promptEditor.groupToggle', { n: number })}
          onClick={() => actions.toggleGroup(group.id)}
        >
          {target === false ? t('promptEditor.listToggleOn') : t('promptEditor.listToggleOff')}
        </button>
        {removable && (
          <button type="button" className="word-list__toggle" aria-label={t('promptEditor.groupRemove', { n: number })} onClick={() => actions.removeGroup(group.id)}>
            ×
          </button>
        )}
      </header>
      <div className="prompt-group__lists">
        {LIST_TYPES.map((type) => (
          <WordListView key={type} group={group} type={type} actions={actions} drag={drag} badgeOf={badgeOf} />
        ))}
      </div>
    </section>
  );
}
