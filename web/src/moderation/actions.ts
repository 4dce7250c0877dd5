// Moderation's actions on the app's API client and store: the one
// ModerationApi, and the hook that knows the signed-in account's role.
import { useEffect } from 'react';
import { tokenAtom } from '../account/atoms';
import { api } from '../app/services';
import { appStore, useAtomValue } from '../state/jotai';
import { ModerationApi } from './api';
import type { Role } from './api';
import { moderationRoleAtom } from './atoms';

export const moderationApi = new ModerationApi(api);

/** The question in flight per token, so several components ask once. */
const asking = new Map<string, Promise<Role>>();

/** Asks the server the role of `token` and records it (a failure counts as a plain user). */
export function loadRole(token: string, client: Pick<ModerationApi, 'role'> = moderationApi, store = appStore): Promise<Role> {
  const pending = asking.get(token);
  if (pending) return pending;
  const p = client
    .role()
    .catch((): Role => 'user')
    .then((role) => {
      asking.delete(token);
      if (store.get(tokenAtom) === token) store.set(moderationRoleAtom, { token, role });
      return role;
    });
  asking.set(token, p);
  return p;
}

/**
 * The signed-in account's moderation role: `null` while unknown (logged out,
 * or the answer is on its way), else what `moderation/me` answered for this token.
 */
export function useModerationRole(): Role | null {
  const token = useAtomValue(tokenAtom);
  const known = useAtomValue(moderationRoleAtom);
  const current = token !== null && known?.token === token ? known.role : null;
  useEffect(() => {
    if (token !== null && current === null) void loadRole(token);
  }, [token, current]);
  return current;
}
