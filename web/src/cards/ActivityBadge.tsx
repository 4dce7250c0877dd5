import { useT } from '../i18n/useT';
import { activityBadge } from './activityMark';
import type { CardActivityMark } from './activityMark';
import { CardLink } from './CardLink';
import './activityBadge.css';

/** The daily-challenge badge or the activity mark on a content card (spec 1 §3), linking to the activity; nothing without a mark. */
export function ActivityBadge({ card }: { card: { obj_type: number; id: string | number; title?: string | null; activity_mark?: CardActivityMark | null } }) {
  const t = useT();
  const badge = activityBadge(card);
  if (badge === null) return null;
  const label = badge.kind === 'daily' ? t('activities.badge.daily') : t('activities.badge.mark', { title: badge.title });
  return (
    <CardLink item={badge.item} className={`card-activity card-activity--${badge.kind}`} data-testid="card-activity-badge" data-kind={badge.kind} title={badge.title || label}>
      {badge.kind === 'daily' ? `☀ ${label}` : `★ ${badge.title || t('activities.nav')}`}
    </CardLink>
  );
}
