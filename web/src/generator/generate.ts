// The generate press (spec 1 §4 "Opening and generating", §5): ignored while
// generating; checked like the server would; posted to the tab's call; on
// success a CreateSuccess toast and the task handed to the task list; on
// failure the server's message key shown (NeedLogin opens the login popup,
// CoinsNotEnough the recharge dialog, a member-only key the VIP pop-up).
import { loginDialogAtom } from '../account/atoms';
import { isApiError } from '../api/client';
import type { ApiClient } from '../api/client';
import { rechargeOpenAtom, vipPopupAtom } from '../mall/atoms';
import { COINS_NOT_ENOUGH, isMemberOnlyKey } from '../mall/errors';
import type { AppStore } from '../state/jotai';
import { configKey, generatingAtom, popupsAtom, problemAtom, roleAtom, uploadsAtom } from './atoms';
import type { Catalogue } from './catalogue';
import { buildRequest } from './config';
import type { TabConfig } from './config';
import { callPath } from './tabs';
import type { TabId } from './tabs';
import { validate } from './validate';

/** Code of NeedLogin. */
const NEED_LOGIN = 20000;

export interface GenerateDeps {
  store: AppStore;
  api: Pick<ApiClient, 'post'>;
  catalogue: Catalogue;
  studio: boolean;
  tab: TabId;
  config: TabConfig;
  /** The task was accepted: toast and hand it to the task list. */
  onCreated: (id: string) => void;
}

/** Whether an upload of this mode and tab is running. */
export function uploadingFor(uploads: Readonly<Record<string, { fraction: number; failed: boolean }>>, prefix: string): boolean {
  return Object.entries(uploads).some(([slot, u]) => slot.startsWith(`${prefix}:`) && !u.failed && u.fraction < 1);
}

/** Runs one generate press; answers the new task id, or null. */
export async function generate(deps: GenerateDeps): Promise<string | null> {
  const { store, api, catalogue, studio, tab, config } = deps;
  if (store.get(generatingAtom)) return null;
  const role = store.get(roleAtom);
  const uploading = uploadingFor(store.get(uploadsAtom), configKey(studio, tab));
  const problem = validate(tab, config, { catalogue, studio, role, uploading });
  if (problem) {
    if (problem.show === 'login') store.set(loginDialogAtom, { open: true, step: 'login' });
    else if (problem.show === 'loraDialog') store.set(popupsAtom, { loraLimit: true });
    store.set(problemAtom, problem);
    return null;
  }
  store.set(problemAtom, null);
  store.set(generatingAtom, true);
  try {
    const body = buildRequest(tab, config, { catalogue, studio, role });
    const { id } = await api.post<{ id: string }>(callPath(tab), body);
    deps.onCreated(id);
    return id;
  } catch (e) {
    if (isApiError(e)) {
      if (e.code === NEED_LOGIN) store.set(loginDialogAtom, { open: true, step: 'login' });
      if (e.key === 'LoRALimit5TipWeb') store.set(popupsAtom, { loraLimit: true });
      // Spec 1 §4: credits ran short -> the recharge dialog; a member-only choice -> the VIP pop-up.
      if (e.code === COINS_NOT_ENOUGH || e.key === 'CoinsNotEnough') store.set(rechargeOpenAtom, true);
      if (isMemberOnlyKey(e.key)) store.set(vipPopupAtom, { open: true, reason: 'member-only' });
      store.set(problemAtom, { show: 'server', key: e.key, text: e.msg });
    } else {
      store.set(problemAtom, { show: 'server', key: 'NetworkError', text: '' });
    }
    return null;
  } finally {
    store.set(generatingAtom, false);
  }
}
