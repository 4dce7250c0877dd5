// Asks the server once per signed-in page load whether to show the membership
// popup (`account/vip-pop`: never to members, frequency-capped, remembered
// server-side) and opens the mall's VipPopup when it says so.
import { useEffect, useRef } from 'react';
import { loggedInAtom } from '../account/atoms';
import { api } from '../app/services';
import { vipPopupAtom } from '../mall/atoms';
import { appStore, useAtomValue } from '../state/jotai';

interface VipPop {
  show: boolean;
  reason: string;
}

export function VipPopAuto() {
  const loggedIn = useAtomValue(loggedInAtom);
  const asked = useRef(false);
  useEffect(() => {
    if (!loggedIn || asked.current) return;
    asked.current = true;
    api
      .post<VipPop>('/api/v1/account/vip-pop', {})
      .then((p) => {
        if (p.show && !appStore.get(vipPopupAtom).open) appStore.set(vipPopupAtom, { open: true, reason: 'server' });
      })
      // Not logged in yet (a status-3 profile) or offline: nothing to show.
      .catch(() => undefined);
  }, [loggedIn]);
  return null;
}
