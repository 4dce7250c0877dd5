// The settings page's sections, by tab (ACCOUNTS21.md: each helper adds its
// entries; the lead merges the lists).
import type { ComponentType } from 'react';
import { DeleteAccountSection } from './DeleteAccountSection';

export interface SettingsSection { tab: 'profile'|'security'|'notifications'|'account'; id: string; title: string /* i18n key */; Component: ComponentType }

export const SECTIONS: SettingsSection[] = [
  { tab: 'account', id: 'delete-account', title: 'deletion.section', Component: DeleteAccountSection },
];
