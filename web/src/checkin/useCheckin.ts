// The check-in widget's state: reads the info when opened, checks in,
// toasts the credits and marks them stale so the header shows the new balance.
import { useCallback, useState } from 'react';
import { api } from '../app/services';
import { showToast } from '../app/toast';
import { useT } from '../i18n/useT';
import { paymentStaleAtom } from '../mall/pushHook';
import { useErrorText } from '../tavern/useErrorText';
import { appStore, useAtom } from '../state/jotai';
import { checkinApi } from './api';
import { checkinInfoAtom } from './atoms';
import { browserZone, toastOf } from './model';

export function useCheckin() {
  const t = useT();
  const errorText = useErrorText();
  const [info, setInfo] = useAtom(checkinInfoAtom);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      const next = await checkinApi(api).info(browserZone());
      setInfo(next);
      setError(null);
      // Today's check-in credits not announced yet (checked in on another device).
      if (next.temp_coins_popup > 0 && (await checkinApi(api).markTempCoins())) showToast(appStore, t('checkin.toast', { n: next.temp_coins_popup }));
    } catch (e) {
      setError(errorText(e));
    }
  }, [setInfo, errorText, t]);

  const checkIn = useCallback(async () => {
    setBusy(true);
    setError(null);
    try {
      const done = await checkinApi(api).checkIn(browserZone());
      setInfo(done.info);
      const toast = toastOf(done);
      showToast(appStore, toast.key === 'checkin.toast' ? t('checkin.toast', { n: toast.n }) : t('checkin.already'));
      appStore.set(paymentStaleAtom, (n) => n + 1);
      // The toast was the day's credits popup: not again on another device.
      if (done.granted) await checkinApi(api).markTempCoins().catch(() => false);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }, [setInfo, t, errorText]);

  /** Changes the zone; true when it was changed (the panel then closes its form). */
  const changeZone = useCallback(
    async (tz: string): Promise<boolean> => {
      setBusy(true);
      setError(null);
      try {
        setInfo(await checkinApi(api).setZone(tz));
        showToast(appStore, t('checkin.zoneChanged', { zone: tz }));
        return true;
      } catch (e) {
        setError(errorText(e));
        return false;
      } finally {
        setBusy(false);
      }
    },
    [setInfo, t, errorText],
  );

  return { info, busy, error, load, checkIn, changeZone };
}
