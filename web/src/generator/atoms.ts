// The workspace's state: the catalogue, the caller's payment info (hence the
// role), the mode, the active tab, one config per tab and mode, uploads in
// flight, the generating flag, the shown problem, the estimate and the
// popups. The last tab and the popup state are kept in localStorage.
import { tokenAtom } from '../account/atoms';
import type { PaymentInfo } from '../api/types';
import type { ErrorMessage } from '../i18n/messages';
import { atom } from '../state/jotai';
import type { Catalogue } from './catalogue';
import type { TabConfig } from './config';
import { canOpenTab, roleOf } from './roles';
import { CLOSED_POPUPS, parseNIter, parsePopups, readStored, serializePopups, STORAGE_KEYS, writeStored } from './storage';
import type { PopupState } from './storage';
import { isTabId, STARTER_TAB } from './tabs';
import type { TabId } from './tabs';
import type { Problem } from './validate';

/** The catalogue once loaded; `error` holds the message of a failed load. */
export type CatalogueState =
  | { state: 'loading' }
  | { state: 'ready'; catalogue: Catalogue }
  | { state: 'error'; message: ErrorMessage };

export const catalogueAtom = atom<CatalogueState>({ state: 'loading' });

/** Payment info of the signed-in account, for the token it was read with. */
export const paymentInfoAtom = atom<{ token: string; info: PaymentInfo } | null>(null);

/** visitor, free or paid (spec 1 §6). */
export const roleAtom = atom((get) => {
  const token = get(tokenAtom);
  const payment = get(paymentInfoAtom);
  return roleOf(token, payment && payment.token === token ? payment.info : null);
});

/** Studio creative mode (`/studio`, category 7). */
export const studioModeAtom = atom(false);

const storedTab = atom<TabId>(((v) => (isTabId(v) ? v : STARTER_TAB))(readStored(STORAGE_KEYS.tab)));

/** The active tab, remembered in localStorage. */
export const activeTabAtom = atom(
  (get) => {
    const tab = get(storedTab);
    return canOpenTab(get(roleAtom), tab) ? tab : STARTER_TAB;
  },
  (_get, set, tab: TabId) => {
    set(storedTab, tab);
    writeStored(STORAGE_KEYS.tab, tab);
  },
);

const storedPopups = atom<PopupState>(parsePopups(readStored(STORAGE_KEYS.popups)));

/** Which popups are open, remembered in localStorage. */
export const popupsAtom = atom(
  (get) => get(storedPopups),
  (get, set, change: Partial<PopupState>) => {
    const next = { ...get(storedPopups), ...change };
    set(storedPopups, next);
    writeStored(STORAGE_KEYS.popups, serializePopups(next));
  },
);

export { CLOSED_POPUPS };

const storedNIter = atom<number | null>(parseNIter(readStored(STORAGE_KEYS.nIter)));

/** A free user's last image count (spec 1 §6: "default n_iter from local storage or 2"). */
export const nIterChoiceAtom = atom(
  (get) => get(storedNIter),
  (_get, set, n: number) => {
    set(storedNIter, n);
    writeStored(STORAGE_KEYS.nIter, String(n));
  },
);

/** Config key: mode and tab. */
export function configKey(studio: boolean, tab: TabId): string {
  return `${studio ? 'studio' : 'normal'}:${tab}`;
}

/** Per-tab configs, by `configKey`; a tab without one uses its defaults. */
export const configsAtom = atom<Readonly<Record<string, TabConfig>>>({});

/** Uploads in flight or failed, by slot (`{mode}:{tab}:{slot}`): fraction done. */
export interface UploadState {
  fraction: number;
  failed: boolean;
}

export const uploadsAtom = atom<Readonly<Record<string, UploadState>>>({});

/** Set while a generate press is being answered (spec 1 §5: a second press is ignored). */
export const generatingAtom = atom(false);

/** The problem shown under the form: a check's key, or a server error's text. */
export type ShownProblem = Problem | { show: 'server'; key: string | null; text: string };

export const problemAtom = atom<ShownProblem | null>(null);

/** The last estimate (`v2/estimate`). */
export interface EstimateState {
  coins: number;
  balance: number | null;
  freeLeft: number | null;
}

export const estimateAtom = atom<EstimateState | null>(null);

/** Credits available now (balance less holds), for the token it was read with. */
export const balanceAtom = atom<{ token: string; available: number } | null>(null);
