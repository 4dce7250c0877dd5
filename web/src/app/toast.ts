// A single transient message (spec 2 §4: a success message after login).
import { atom } from '../state/jotai';
import type { AppStore } from '../state/jotai';

export interface Toast {
  id: number;
  text: string;
}

export const toastAtom = atom<Toast | null>(null);

/** How long a toast stays up. */
export const TOAST_MS = 4_000;

let nextId = 1;

export function showToast(store: AppStore, text: string): void {
  const id = nextId++;
  store.set(toastAtom, { id, text });
  setTimeout(() => {
    if (store.get(toastAtom)?.id === id) store.set(toastAtom, null);
  }, TOAST_MS);
}
