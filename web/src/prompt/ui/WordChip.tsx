import type { KeyboardEvent, PointerEvent } from 'react';
import { useT } from '../../i18n/useT';
import { displayName, displayWeight, type StepDirection, type WordLocation } from '../editor';
import type { Word } from '../types';
import { isMoveKey, type MoveKey } from './model';

export interface WordChipProps {
  word: Word;
  at: WordLocation;
  badge: string | null;
  dragging: boolean;
  insertBefore: boolean;
  onToggle(): void;
  onStep(direction: StepDirection): void;
  onRemove(): void;
  onMoveKey(key: MoveKey): void;
  onPointerDown(e: PointerEvent<HTMLElement>): void;
}

/**
 * One word: its name (click to turn it on or off; arrow keys move it, + and
 * - step its weight, Delete removes it), the weight when not 1, a
 * translation badge, and the -, + and remove buttons.
 */
export function WordChip(props: WordChipProps) {
  const t = useT();
  const { word, badge } = props;
  const name = displayName(word.type === 'command' || word.text === '' ? word.rawText : word.text);
  const weight = displayWeight(word.lv);

  function onKeyDown(e: KeyboardEvent<HTMLButtonElement>) {
    if (isMoveKey(e.key) && !e.altKey && !e.ctrlKey && !e.metaKey) {
      e.preventDefault();
      props.onMoveKey(e.key);
    } else if (e.key === '+' || e.key === '=') {
      e.preventDefault();
      props.onStep('up');
    } else if (e.key === '-' || e.key === '_') {
      e.preventDefault();
      props.onStep('down');
    } else if (e.key === 'Delete' || e.key === 'Backspace') {
      e.preventDefault();
      props.onRemove();
    }
  }

  const classes = ['chip', `chip--${word.type}`];
  if (word.disabled) classes.push('chip--disabled');
  if (props.dragging) classes.push('chip--dragging');
  if (props.insertBefore) classes.push('chip--insert-before');
  const description = [
    weight === null ? null : t('promptEditor.wordWeight', { lv: weight }),
    word.disabled ? t('promptEditor.wordDisabled') : null,
    badge,
  ]
    .filter((s) => s !== null)
    .join(', ');

  return (
    <li
      className={classes.join(' ')}
      data-chip-index={props.at.index}
      data-word-id={word.id}
      onPointerDown={props.onPointerDown}
    >
      <button
        type="button"
        className="chip__label"
        aria-pressed={!word.disabled}
        aria-label={description === '' ? name : `${name} (${description})`}
        title={t('promptEditor.wordToggleHint')}
        onClick={props.onToggle}
        onKeyDown={onKeyDown}
      >
        <span className="chip__text">{name}</span>
        {weight !== null && <span className="chip__weight" data-testid="chip-weight">{weight}</span>}
        {badge !== null && (
          <span className="chip__badge" title={t('promptEditor.translation')} data-testid="chip-badge">
            {badge}
          </span>
        )}
      </button>
      <span className="chip__tools" data-no-drag="">
        <button type="button" className="chip__tool" aria-label={t('promptEditor.wordDown', { text: name })} onClick={() => props.onStep('down')}>
          −
        </button>
        <button type="button" className="chip__tool" aria-label={t('promptEditor.wordUp', { text: name })} onClick={() => props.onStep('up')}>
          +
        </button>
        <button type="button" className="chip__tool chip__tool--remove" aria-label={t('promptEditor.wordRemove', { text: name })} onClick={props.onRemove}>
          ×
        </button>
      </span>
    </li>
  );
}
