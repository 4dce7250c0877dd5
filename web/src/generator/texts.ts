// Message keys of the generator's own strings that are chosen at run time.
import type { MessageKey } from '../i18n/messages';
import type { TabId } from './tabs';

const TAB_LABELS: Readonly<Record<TabId, MessageKey>> = {
  SIMPLE: 'gen.tab.SIMPLE',
  textToImage: 'gen.tab.textToImage',
  imageToImage: 'gen.tab.imageToImage',
  conditionToImage: 'gen.tab.conditionToImage',
  extraUpscale: 'gen.tab.extraUpscale',
  descriptors: 'gen.tab.descriptors',
  preview: 'gen.tab.preview',
  promptStudio: 'gen.tab.promptStudio',
  expansion: 'gen.tab.expansion',
  faceSwap: 'gen.tab.faceSwap',
  animGen: 'gen.tab.animGen',
  characterRepair: 'gen.tab.characterRepair',
};

const TAB_HINTS: Readonly<Record<TabId, MessageKey>> = {
  SIMPLE: 'gen.hint.SIMPLE',
  textToImage: 'gen.hint.textToImage',
  imageToImage: 'gen.hint.imageToImage',
  conditionToImage: 'gen.hint.conditionToImage',
  extraUpscale: 'gen.hint.extraUpscale',
  descriptors: 'gen.hint.descriptors',
  preview: 'gen.hint.preview',
  promptStudio: 'gen.hint.promptStudio',
  expansion: 'gen.hint.expansion',
  faceSwap: 'gen.hint.faceSwap',
  animGen: 'gen.hint.animGen',
  characterRepair: 'gen.hint.characterRepair',
};

export function tabLabelKey(tab: TabId): MessageKey {
  return TAB_LABELS[tab];
}

export function tabHintKey(tab: TabId): MessageKey {
  return TAB_HINTS[tab];
}
