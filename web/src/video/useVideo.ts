// The video page's current tab, its form (defaults when untouched), the
// parameter config and the caller, and an updater.
import { useCallback, useMemo } from 'react';
import type { VideoParams } from '../api/video';
import { paymentInfoAtom, roleAtom } from '../generator/atoms';
import { tokenAtom } from '../account/atoms';
import { useAtom, useAtomValue } from '../state/jotai';
import { videoConfigsAtom, videoTabAtom } from './atoms';
import { defaultVideoConfig } from './model';
import type { VideoCaller, VideoConfig } from './model';

export function useVideoCaller(): VideoCaller {
  const role = useAtomValue(roleAtom);
  const token = useAtomValue(tokenAtom);
  const payment = useAtomValue(paymentInfoAtom);
  const info = payment !== null && payment.token === token ? payment.info : null;
  return useMemo(() => ({ role, payment: info }), [role, info]);
}

export function useVideo(params: VideoParams) {
  const tab = useAtomValue(videoTabAtom);
  const [configs, setConfigs] = useAtom(videoConfigsAtom);
  const caller = useVideoCaller();
  const config = useMemo(() => configs[tab] ?? defaultVideoConfig(tab, params, caller), [configs, tab, params, caller]);
  const update = useCallback(
    (change: Partial<VideoConfig> | ((c: VideoConfig) => VideoConfig)) =>
      setConfigs((all) => {
        const current = all[tab] ?? defaultVideoConfig(tab, params, caller);
        return { ...all, [tab]: typeof change === 'function' ? change(current) : { ...current, ...change } };
      }),
    [setConfigs, tab, params, caller],
  );
  return { tab, config, update, caller, params };
}
