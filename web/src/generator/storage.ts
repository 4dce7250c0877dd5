// What the workspace keeps in localStorage (spec 1 §4: the last tab and the
// popup open/close state; §6: a free user's image count). Every access is
// guarded: a browser without storage simply forgets.

export const STORAGE_KEYS = {
  tab: 'easel.generator.tab',
  popups: 'easel.generator.popups',
  nIter: 'easel.generator.nIter',
} as const;

function storage(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}

export function readStored(key: string): string | null {
  try {
    return storage()?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

export function writeStored(key: string, value: string | null): void {
  try {
    const s = storage();
    if (!s) return;
    if (value === null) s.removeItem(key);
    else s.setItem(key, value);
  } catch {
    // Storage full or blocked: the choice is simply not remembered.
  }
}

/**
 * Which popups are open (spec 1 §4 "Popup open/close state is cached in
 * local storage"). Only the control-net popup is restored after a reload:
 * the LoRA-limit dialog is about LoRAs that a reload forgets.
 */
export interface PopupState {
  controlNet: boolean;
  loraLimit: boolean;
}

export const CLOSED_POPUPS: PopupState = { controlNet: false, loraLimit: false };

export function parsePopups(raw: string | null): PopupState {
  if (raw === null) return CLOSED_POPUPS;
  try {
    const v: unknown = JSON.parse(raw);
    if (typeof v !== 'object' || v === null) return CLOSED_POPUPS;
    const o = v as Record<string, unknown>;
    return { controlNet: o.controlNet === true, loraLimit: false };
  } catch {
    return CLOSED_POPUPS;
  }
}

export function parseNIter(raw: string | null): number | null {
  if (raw === null) return null;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 && n <= 4 ? n : null;
}

export function serializePopups(p: PopupState): string {
  return JSON.stringify({ controlNet: p.controlNet });
}
