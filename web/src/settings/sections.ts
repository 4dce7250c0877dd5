// The settings page's registry (issue 21): each section names its tab, an
// id, its title's i18n key and its component. Helpers add their entries;
// the page shows a tab's sections in this order.
import type { ComponentType } from 'react';
import { DeleteAccountSection } from './DeleteAccountSection';
import { EmailPasswordSection } from './EmailPasswordSection';
import { InviteSection } from './InviteSection';
import { LinkedAccountsSection } from './LinkedAccountsSection';
import { NotificationsSection } from './NotificationsSection';
import { ProfileSection } from './ProfileSection';
import { SessionsSection } from './SessionsSection';
import { TwoFactorSection } from './TwoFactorSection';
import { AnalyticsSettingsSection } from '../analytics/AnalyticsSettingsSection';

export interface SettingsSection {
  tab: 'profile' | 'security' | 'notifications' | 'account';
  id: string;
  title: string /* i18n key */;
  Component: ComponentType;
}

export const SECTIONS: SettingsSection[] = [
  { tab: 'profile', id: 'profile', title: 'settings.profile.title', Component: ProfileSection },
  { tab: 'security', id: 'email-password', title: 'mail.sectionTitle', Component: EmailPasswordSection },
  { tab: 'security', id: 'linked-accounts', title: 'oidc.linked.title', Component: LinkedAccountsSection },
  { tab: 'security', id: 'sessions', title: 'settings.sessions.title', Component: SessionsSection },
  { tab: 'security', id: 'two-factor', title: 'settings.twoFactor.title', Component: TwoFactorSection },
  { tab: 'notifications', id: 'notifications', title: 'settings.notifications.title', Component: NotificationsSection },
  { tab: 'account', id: 'invite', title: 'invite.title', Component: InviteSection },
  { tab: 'account', id: 'delete-account', title: 'deletion.section', Component: DeleteAccountSection },
  { tab: 'account', id: 'analytics', title: 'analytics.settings.title', Component: AnalyticsSettingsSection },
];
