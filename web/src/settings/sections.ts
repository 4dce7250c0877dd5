// The settings page's sections by tab: each feature adds its entry here and
// the settings page (`/settings`, `/settings/{tab}`) renders them in order.
import type { ComponentType } from 'react';
import { LinkedAccountsSection } from './LinkedAccountsSection';

export interface SettingsSection {
  tab: 'profile' | 'security' | 'notifications' | 'account';
  id: string;
  title: string /* i18n key */;
  Component: ComponentType;
}

export const SECTIONS: SettingsSection[] = [
  { tab: 'security', id: 'linked-accounts', title: 'oidc.linked.title', Component: LinkedAccountsSection },
];
