// Words and links of the console: an object type's name, where an object
// opens (its page, or its channel for a message), a report reason's label
// and an audit entry's action, all through the translation table.
import { isMessageKey } from '../i18n/messages';
import type { Translate } from '../i18n/useT';
import { channelPath } from '../channels/route';
import { profilePath, workPath } from '../square/route';
import { tavernPath } from '../tavern/route';
import type { AuditAction, ObjRef } from './api';
import { OBJ } from './api';

export function objLabel(t: Translate, objType: number): string {
  const key = `moderation.obj.${objType}`;
  return isMessageKey(key) ? t(key) : t('moderation.obj.other', { type: objType });
}

/** The page an object opens on (without the locale), or null when it has none of its own. */
export function objPath(obj: ObjRef): string | null {
  switch (obj.obj_type) {
    case OBJ.work:
    case 15:
      return workPath(obj.obj_id);
    case OBJ.character:
      return tavernPath({ view: 'detail', id: obj.obj_id });
    case OBJ.message: {
      const channel = obj.obj_id.split(':')[0] ?? '';
      return channel === '' ? null : channelPath(channel);
    }
    case OBJ.account:
      return profilePath(obj.obj_id);
    default:
      return null;
  }
}

export function reasonLabel(t: Translate, reason: string): string {
  const key = `moderation.report.reason.${reason}`;
  return isMessageKey(key) ? t(key) : reason;
}

export function actionLabel(t: Translate, action: AuditAction | string): string {
  const key = `moderation.audit.action.${action}`;
  return isMessageKey(key) ? t(key) : action;
}

export function when(ms: number): string {
  return ms > 0 ? new Date(ms).toLocaleString() : '';
}
