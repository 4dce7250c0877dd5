// "Generate the same" on a work's page: opens the generator with the
// work's prompt, negative prompt, size, seed, steps, guidance and sampler,
// and its checkpoint when the catalogue has it. Like the agent's "Use in
// generator" (agent/generatorLink.ts), it writes the generator's atoms and
// navigates to /create; the generator's tab config takes the values.
import { PROMPT_TABS, sendToGenerator } from '../agent/generatorLink';
import { api } from '../app/services';
import { activeTabAtom, catalogueAtom, configKey, configsAtom, nIterChoiceAtom, roleAtom, studioModeAtom } from '../generator/atoms';
import type { Catalogue } from '../generator/catalogue';
import { findCheckpoint } from '../generator/catalogue';
import { defaultConfig } from '../generator/config';
import type { TabConfig } from '../generator/config';
import { STARTER_TAB } from '../generator/tabs';
import type { TabId } from '../generator/tabs';
import { localePath } from '../router/locale';
import { localeAtom, navigate } from '../router/router';
import type { AppStore } from '../state/jotai';
import type { GenParams } from '../square/types';

/** The tab config `params` makes from `base` (the tab's present config): only the fields a work records. */
export function configFromParams(base: TabConfig, params: GenParams, tab: TabId, catalogue: Catalogue): TabConfig {
  const next: TabConfig = { ...base, prompt: params.prompt };
  if (params.negative_prompt !== '') next.negative = params.negative_prompt;
  if (params.width > 0 && params.height > 0) {
    next.width = params.width;
    next.height = params.height;
  }
  if (params.seed >= 0) next.seed = String(params.seed);
  if (params.steps > 0) next.steps = params.steps;
  if (params.cfg_scale > 0) next.cfg = params.cfg_scale;
  if (params.sampler !== '') next.sampler = params.sampler;
  // The starter tab picks a look, not a checkpoint.
  if (tab !== STARTER_TAB && params.model !== '' && findCheckpoint(catalogue, params.model)) next.modelVerNo = params.model;
  return next;
}

async function readyCatalogue(store: AppStore): Promise<Catalogue | null> {
  const state = store.get(catalogueAtom);
  if (state.state === 'ready') return state.catalogue;
  try {
    const catalogue = await api.post<Catalogue>('/api/v1/task/v2/config/model');
    if (store.get(catalogueAtom).state !== 'ready') store.set(catalogueAtom, { state: 'ready', catalogue });
    return catalogue;
  } catch {
    return null;
  }
}

/** Opens the generator with `params`; with the prompt alone when the catalogue cannot be read. */
export async function generateSame(store: AppStore, params: GenParams): Promise<void> {
  const catalogue = await readyCatalogue(store);
  if (catalogue === null) {
    sendToGenerator(store, params.prompt);
    return;
  }
  const studio = false;
  store.set(studioModeAtom, studio);
  const active = store.get(activeTabAtom);
  const tab: TabId = PROMPT_TABS.includes(active) ? active : STARTER_TAB;
  if (tab !== active) store.set(activeTabAtom, tab);
  const ctx = { catalogue, studio, role: store.get(roleAtom), storedNIter: store.get(nIterChoiceAtom) };
  const key = configKey(studio, tab);
  const base = store.get(configsAtom)[key] ?? defaultConfig(tab, ctx);
  store.set(configsAtom, { ...store.get(configsAtom), [key]: configFromParams(base, params, tab, catalogue) });
  navigate(store, localePath(store.get(localeAtom), '/create'));
}
