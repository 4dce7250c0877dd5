// The agent's links to the generator: the base model the generator has
// chosen (for `biz_param.curr_base_model_name`), and "Use in generator",
// which hands a prompt to the generator's prompt field and opens /create.
import { activeTabAtom, catalogueAtom, configKey, configsAtom, nIterChoiceAtom, roleAtom, studioModeAtom } from '../generator/atoms';
import { checkpointOf, defaultConfig } from '../generator/config';
import { STARTER_TAB } from '../generator/tabs';
import type { TabId } from '../generator/tabs';
import { localePath } from '../router/locale';
import { localeAtom, navigate } from '../router/router';
import type { AppStore } from '../state/jotai';
import { pendingGeneratorPromptAtom } from './atoms';

/** Tabs whose form has the prompt field (generator/TabFields.tsx). */
export const PROMPT_TABS: readonly TabId[] = ['SIMPLE', 'textToImage', 'promptStudio', 'imageToImage', 'conditionToImage', 'expansion', 'animGen'];

/** The generator's active tab and checkpoint name; '' for what is not known (the catalogue not loaded yet). */
export function generatorContext(store: AppStore): { tab: TabId; baseModelName: string } {
  const tab = store.get(activeTabAtom);
  const state = store.get(catalogueAtom);
  if (state.state !== 'ready') return { tab, baseModelName: '' };
  const studio = store.get(studioModeAtom);
  const ctx = { catalogue: state.catalogue, studio, role: store.get(roleAtom), storedNIter: store.get(nIterChoiceAtom) };
  const config = store.get(configsAtom)[configKey(studio, tab)] ?? defaultConfig(tab, ctx);
  return { tab, baseModelName: checkpointOf(config, tab, state.catalogue)?.name ?? '' };
}

/** Puts `prompt` into the generator's prompt field (a tab with one) and opens the generator. */
export function sendToGenerator(store: AppStore, prompt: string): void {
  store.set(pendingGeneratorPromptAtom, prompt);
  if (!PROMPT_TABS.includes(store.get(activeTabAtom))) store.set(activeTabAtom, STARTER_TAB);
  navigate(store, localePath(store.get(localeAtom), '/create'));
}
