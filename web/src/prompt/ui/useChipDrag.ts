// Dragging word chips with pointer events: a press becomes a drag only after
// the pointer moved more than 10 px (spec 1 §9), the drop target is the list
// and chip under the pointer (found through data attributes), and a drag
// swallows the click that would otherwise toggle the word.

import { useCallback, useEffect, useRef, useState } from 'react';
import type { PointerEvent as ReactPointerEvent } from 'react';
import { isListType, type WordLocation } from '../editor';
import { dropIndex, isDrag } from './model';

export interface DragState {
  wordId: string;
  text: string;
  x: number;
  y: number;
  target: WordLocation | null;
}

/** The drop location under a point, or null when it is over no list. */
export function dropTargetAt(x: number, y: number, from: WordLocation): WordLocation | null {
  const el = document.elementFromPoint(x, y);
  const listEl = el?.closest<HTMLElement>('[data-drop-list]');
  if (!listEl) return null;
  const groupId = listEl.dataset.groupId;
  const list = listEl.dataset.list;
  if (groupId === undefined || !isListType(list)) return null;
  const chips = listEl.querySelectorAll<HTMLElement>('[data-chip-index]');
  const chipEl = el?.closest<HTMLElement>('[data-chip-index]');
  let over: { index: number; after: boolean } | null = null;
  if (chipEl && listEl.contains(chipEl)) {
    const rect = chipEl.getBoundingClientRect();
    over = { index: Number(chipEl.dataset.chipIndex), after: x > rect.left + rect.width / 2 };
  }
  const sameList = from.groupId === groupId && from.list === list ? from.index : null;
  return { groupId, list, index: dropIndex(over, chips.length, sameList) };
}

export interface ChipDrag {
  drag: DragState | null;
  /** Starts watching a press on a chip. */
  onPointerDown(e: ReactPointerEvent<HTMLElement>, from: WordLocation, wordId: string, text: string): void;
  /** True (once) when the click that follows a drag must be ignored. */
  consumeClick(): boolean;
}

export function useChipDrag(onDrop: (from: WordLocation, to: WordLocation) => void): ChipDrag {
  const [drag, setDrag] = useState<DragState | null>(null);
  const suppress = useRef(false);
  const cleanup = useRef<(() => void) | null>(null);
  const onDropRef = useRef(onDrop);
  useEffect(() => {
    onDropRef.current = onDrop;
  });
  useEffect(() => () => cleanup.current?.(), []);

  const onPointerDown = useCallback(
    (e: ReactPointerEvent<HTMLElement>, from: WordLocation, wordId: string, text: string) => {
      if (e.button !== 0 || !e.isPrimary) return;
      if (e.target instanceof Element && e.target.closest('[data-no-drag]')) return;
      cleanup.current?.();
      const startX = e.clientX;
      const startY = e.clientY;
      let dragging = false;

      const move = (ev: PointerEvent) => {
        if (!dragging) {
          if (!isDrag(ev.clientX - startX, ev.clientY - startY)) return;
          dragging = true;
          document.body.classList.add('prompt-dragging');
        }
        ev.preventDefault();
        setDrag({ wordId, text, x: ev.clientX, y: ev.clientY, target: dropTargetAt(ev.clientX, ev.clientY, from) });
      };
      const up = (ev: PointerEvent) => {
        stop();
        if (!dragging) return;
        suppress.current = true;
        window.setTimeout(() => {
          suppress.current = false;
        }, 0);
        setDrag(null);
        const target = dropTargetAt(ev.clientX, ev.clientY, from);
        if (target !== null) onDropRef.current(from, target);
      };
      const cancel = () => {
        stop();
        setDrag(null);
      };
      function stop() {
        window.removeEventListener('pointermove', move);
        window.removeEventListener('pointerup', up);
        window.removeEventListener('pointercancel', cancel);
        document.body.classList.remove('prompt-dragging');
        cleanup.current = null;
      }
      window.addEventListener('pointermove', move);
      window.addEventListener('pointerup', up);
      window.addEventListener('pointercancel', cancel);
      cleanup.current = stop;
    },
    [],
  );

  const consumeClick = useCallback(() => {
    if (!suppress.current) return false;
    suppress.current = false;
    return true;
  }, []);

  return { drag, onPointerDown, consumeClick };
}
