// The ornament shop's API instance, and what wearing changes in the
// signed-in account (the header shows its avatar ornament).
import { accountAtom } from '../account/atoms';
import { api } from '../app/services';
import { appStore } from '../state/jotai';
import type { AppStore } from '../state/jotai';
import { OrnamentApi } from './api';

export const ornamentApi = new OrnamentApi(api);

/** Records the avatar ornament the signed-in account wears now. */
export function setMyOrnament(url: string | null, store: AppStore = appStore): void {
  const account = store.get(accountAtom);
  if (account !== null && (account.ornament ?? null) !== url) store.set(accountAtom, { ...account, ornament: url });
}
