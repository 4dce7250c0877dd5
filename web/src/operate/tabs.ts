// The operators' console registry (issue 22): each tab names its id (the path
// segment under `/operate`), its title's i18n key and its component. Features
// add their entry at the end; the console shows the tabs in this order.
import type { ComponentType } from 'react';
import { CheckinAdminTab } from '../checkin/CheckinAdminTab';
import { HomeComposer } from '../home/HomeComposer';
import { OperateActivities } from '../activities/OperateActivities';
import { AnalyticsTab } from '../analytics/AnalyticsTab';
import { OperateSurveys } from '../surveys/OperateSurveys';

export interface OperateTab {
  id: string;
  title: string /* i18n key */;
  Component: ComponentType;
}

export const OPERATE_TABS: OperateTab[] = [
  { id: 'activities', title: 'activities.admin.tab', Component: OperateActivities },
  { id: 'analytics', title: 'analytics.tab', Component: AnalyticsTab },
  { id: 'home', title: 'home.tab', Component: HomeComposer },
  { id: 'checkin', title: 'operate.checkin.tab', Component: CheckinAdminTab },
  { id: 'surveys', title: 'surveys.tab', Component: OperateSurveys },
];
