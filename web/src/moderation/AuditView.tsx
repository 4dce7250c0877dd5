// The audit log (operators): every moderator action, newest first, paged;
// read only (the server offers no call that edits or deletes an entry).
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { useErrorText } from '../tavern/useErrorText';
import { moderationApi } from './actions';
import { actionLabel, objLabel, objPath, when } from './labels';
import { auditKey } from './model';
import { usePagedList } from './usePagedList';

export function AuditView() {
  const t = useT();
  const errorText = useErrorText();
  const locale = useAtomValue(localeAtom);
  const list = usePagedList((cursor) => moderationApi.audit(cursor), auditKey, []);

  return (
    <section className="mod-audit" data-testid="mod-audit">
      {list.error !== null && (
        <p className="sq-error" role="alert">
          {errorText(list.error)}
        </p>
      )}
      {!list.loading && list.error === null && list.items.length === 0 && <p className="sq-note">{t('moderation.audit.empty')}</p>}
      {list.items.length > 0 && (
        <div className="mod-table-wrap">
          <table className="mod-table">
            <thead>
              <tr>
                <th scope="col">{t('moderation.audit.when')}</th>
                <th scope="col">{t('moderation.audit.who')}</th>
                <th scope="col">{t('moderation.audit.what')}</th>
                <th scope="col">{t('moderation.audit.object')}</th>
                <th scope="col">{t('moderation.audit.why')}</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((e) => {
                const path = objPath(e);
                return (
                  <tr key={e.id} data-testid="audit-entry" data-action={e.action}>
                    <td>{when(e.create_at)}</td>
                    <td>
                      {e.actor_name || e.actor} <span className="muted">({t(`moderation.role.${e.actor_role}`)})</span>
                    </td>
                    <td>{actionLabel(t, e.action)}</td>
                    <td>
                      {objLabel(t, e.obj_type)}{' '}
                      {path !== null ? <Link to={localePath(locale, path)}>{e.obj_id}</Link> : <code>{e.obj_id}</code>}
                    </td>
                    <td>{e.reason}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {list.loading && <p className="sq-note">{t('moderation.loading')}</p>}
      {list.hasMore && !list.loading && (
        <button type="button" className="button" onClick={list.more}>
          {t('moderation.more')}
        </button>
      )}
    </section>
  );
}
