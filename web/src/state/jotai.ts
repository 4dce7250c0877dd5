// The one module that imports `jotai` (ESLint forbids it anywhere else).
//
// Components use the hooks below inside `<Provider store={appStore}>`; plain
// modules (the socket client, session actions) read and write the same atoms
// through `appStore`. One explicit store instead of jotai's implicit default
// store means there is exactly one place state can live, and tests can build
// a fresh one with `createAppStore()`.
import { createStore } from 'jotai';

export { atom, Provider, useAtom, useAtomValue, useSetAtom } from 'jotai';
export type { Atom, PrimitiveAtom, WritableAtom } from 'jotai';

/** The store type shared by the app and by plain modules that write atoms. */
export type AppStore = ReturnType<typeof createStore>;

/** Makes a fresh store (tests give each case its own). */
export function createAppStore(): AppStore {
  return createStore();
}

/** The application's store: passed to `<Provider>` and used by non-React code. */
export const appStore: AppStore = createAppStore();
