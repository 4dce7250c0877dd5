import { useEffect, useId, useRef, useState } from 'react';
import type { KeyboardEvent } from 'react';
import { useT } from '../i18n/useT';
import type { ActionButton } from './actions';

/** A menu entry that is not a task action (e.g. "Share to channel"). */
export interface MenuExtra {
  id: string;
  label: string;
  onSelect: () => void;
}

interface MoreMenuProps {
  items: readonly ActionButton[];
  /** Entries after the actions. */
  extras?: readonly MenuExtra[];
  label: (button: ActionButton) => string;
  /** A tooltip for a button shown but not usable, else null. */
  disabledReason: (button: ActionButton) => string | null;
  onSelect: (button: ActionButton) => void;
}

/**
 * The "more" group: a menu button (WAI-ARIA menu pattern). Enter, Space or
 * ArrowDown opens it on the first item; ArrowUp/ArrowDown/Home/End move;
 * Escape closes and returns focus to the button; Tab closes.
 */
export function MoreMenu({ items, extras = [], label, disabledReason, onSelect }: MoreMenuProps) {
  const t = useT();
  const id = useId();
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLUListElement>(null);

  useEffect(() => {
    if (!open) return;
    menuRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"]')[active]?.focus();
  }, [open, active]);

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      const target = e.target as Node;
      if (!menuRef.current?.contains(target) && !buttonRef.current?.contains(target)) setOpen(false);
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [open]);

  function openAt(index: number) {
    setActive(index);
    setOpen(true);
  }

  function close(refocus: boolean) {
    setOpen(false);
    if (refocus) buttonRef.current?.focus();
  }

  function onMenuKey(e: KeyboardEvent<HTMLUListElement>) {
    const last = items.length + extras.length - 1;
    switch (e.key) {
      case 'ArrowDown':
        e.preventDefault();
        setActive((i) => (i >= last ? 0 : i + 1));
        break;
      case 'ArrowUp':
        e.preventDefault();
        setActive((i) => (i <= 0 ? last : i - 1));
        break;
      case 'Home':
        e.preventDefault();
        setActive(0);
        break;
      case 'End':
        e.preventDefault();
        setActive(last);
        break;
      case 'Escape':
        e.preventDefault();
        e.stopPropagation();
        close(true);
        break;
      case 'Tab':
        close(false);
        break;
    }
  }

  function select(button: ActionButton) {
    if (disabledReason(button) !== null) return;
    close(true);
    onSelect(button);
  }

  return (
    <div className="more-menu">
      <button
        ref={buttonRef}
        type="button"
        className="button action-bar__button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        onClick={() => (open ? close(false) : openAt(0))}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            openAt(0);
          } else if (e.key === 'ArrowUp') {
            e.preventDefault();
            openAt(items.length + extras.length - 1);
          }
        }}
      >
        {t('tasks.actions.more')} <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <ul ref={menuRef} id={id} className="more-menu__list" role="menu" aria-label={t('tasks.actions.more')} onKeyDown={onMenuKey}>
          {items.map((button, i) => {
            const reason = disabledReason(button);
            return (
              <li key={button} role="none">
                <button
                  type="button"
                  role="menuitem"
                  tabIndex={i === active ? 0 : -1}
                  className="more-menu__item"
                  aria-disabled={reason !== null}
                  title={reason ?? undefined}
                  onClick={() => select(button)}
                >
                  {label(button)}
                  {reason !== null && <span className="more-menu__note">{reason}</span>}
                </button>
              </li>
            );
          })}
          {extras.map((extra, j) => (
            <li key={`extra-${extra.id}`} role="none">
              <button
                type="button"
                role="menuitem"
                tabIndex={items.length + j === active ? 0 : -1}
                className="more-menu__item"
                onClick={() => {
                  close(true);
                  extra.onSelect();
                }}
              >
                {extra.label}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
