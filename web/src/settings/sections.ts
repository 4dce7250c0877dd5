// The settings page's sections, by tab (issue 21): each helper adds its entry;
// SettingsPage renders the sections of the open tab in this order.
import type { ComponentType } from 'react';
import { InviteSection } from './InviteSection';

export interface SettingsSection { tab: 'profile'|'security'|'notifications'|'account'; id: string; title: string /* i18n key */; Component: ComponentType }

export const SECTIONS: SettingsSection[] = [
  { tab: 'account', id: 'invite', title: 'invite.title', Component: InviteSection },
];
