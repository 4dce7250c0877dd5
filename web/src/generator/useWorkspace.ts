// The active tab's config and what it depends on, for the form components.
import { useCallback, useMemo } from 'react';
import { useAtomValue, useSetAtom } from '../state/jotai';
import { activeTabAtom, catalogueAtom, configKey, configsAtom, nIterChoiceAtom, roleAtom, studioModeAtom } from './atoms';
import type { Catalogue } from './catalogue';
import { checkpointOf, defaultConfig } from './config';
import type { ConfigContext, TabConfig } from './config';
import type { Role } from './roles';
import type { TabId } from './tabs';

export interface Workspace {
  catalogue: Catalogue;
  studio: boolean;
  role: Role;
  tab: TabId;
  /** `{mode}:{tab}`: the prefix of this tab's upload slots. */
  key: string;
  config: TabConfig;
  ctx: ConfigContext;
  update: (change: Partial<TabConfig> | ((c: TabConfig) => TabConfig)) => void;
  /** The checkpoint's family ('' when none is chosen). */
  family: string;
}

/** Only inside the workspace, which renders once the catalogue is loaded. */
export function useWorkspace(): Workspace {
  const state = useAtomValue(catalogueAtom);
  if (state.state !== 'ready') throw new Error('useWorkspace before the catalogue loaded');
  const catalogue = state.catalogue;
  const studio = useAtomValue(studioModeAtom);
  const role = useAtomValue(roleAtom);
  const tab = useAtomValue(activeTabAtom);
  const storedNIter = useAtomValue(nIterChoiceAtom);
  const configs = useAtomValue(configsAtom);
  const setConfigs = useSetAtom(configsAtom);
  const key = configKey(studio, tab);
  const ctx = useMemo<ConfigContext>(
    () => ({ catalogue, studio, role, storedNIter }),
    [catalogue, studio, role, storedNIter],
  );
  const stored = configs[key];
  const config = useMemo(() => stored ?? defaultConfig(tab, ctx), [stored, tab, ctx]);
  const update = useCallback(
    (change: Partial<TabConfig> | ((c: TabConfig) => TabConfig)) =>
      setConfigs((all) => {
        const current = all[key] ?? defaultConfig(tab, ctx);
        const next = typeof change === 'function' ? change(current) : { ...current, ...change };
        return { ...all, [key]: next };
      }),
    [setConfigs, key, tab, ctx],
  );
  const family = checkpointOf(config, tab, catalogue)?.family ?? '';
  return { catalogue, studio, role, tab, key, config, ctx, update, family };
}
