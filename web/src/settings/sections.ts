// The settings page's sections (issue 21): each helper's section registers
// here; the page (`/settings`, `/settings/{tab}`) shows a tab's sections in order.
import type { ComponentType } from 'react';
import { EmailPasswordSection } from './EmailPasswordSection';

export interface SettingsSection {
  tab: 'profile' | 'security' | 'notifications' | 'account';
  id: string;
  title: string /* i18n key */;
  Component: ComponentType;
}

export const SECTIONS: SettingsSection[] = [
  { tab: 'security', id: 'email-password', title: 'mail.sectionTitle', Component: EmailPasswordSection },
];
