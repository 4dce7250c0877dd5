import { useEffect, useRef, useState } from 'react';
import { tokenAtom } from '../account/atoms';
import { activityPath } from '../activities/route';
import { useT } from '../i18n/useT';
import type { Translate } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, navigate } from '../router/router';
import { squareApi } from '../square/actions';
import { profilePath, workPath } from '../square/route';
import { MODEL_OBJ_TYPE } from '../models/api';
import { POST_OBJ_TYPE } from '../square/types';
import type { Notification } from '../square/types';
import { Avatar } from '../square/WorkCard';
import { appStore, useAtom, useAtomValue } from '../state/jotai';
import { notificationsAtom, notificationsStaleAtom } from './atoms';
import { applyPage, badgeText, EMPTY_NOTIFICATIONS, markAllRead } from './model';
import './notifications.css';

/** Where a notification goes: its work (a like, collect, comment, reply or moderator's decision), the model a comment is on, or the actor's profile (a follow). */
export function notificationPath(n: Notification): string {
  if (n.kind !== 'follow' && n.obj_id && (n.obj_type === null || n.obj_type === undefined || n.obj_type === POST_OBJ_TYPE || n.obj_type === 15)) return workPath(n.obj_id);
  if (n.kind === 'activity' && n.obj_id) return activityPath(n.obj_id);
  if (n.kind !== 'follow' && n.obj_id && n.obj_type === MODEL_OBJ_TYPE) return `/models/detail/${encodeURIComponent(n.obj_id)}`;
  if (n.actor.id === '') return '/';
  return profilePath(n.actor.id);
}

function line(t: Translate, n: Notification): string {
  const params = { name: n.actor.name || '…', text: n.text };
  return t(`notifications.kind.${n.kind}`, params);
}

/** The header's bell: the unread count (frame 13 and `notification/list`) and the list. */
export function Bell() {
  const t = useT();
  const token = useAtomValue(tokenAtom);
  const locale = useAtomValue(localeAtom);
  const stale = useAtomValue(notificationsStaleAtom);
  const [state, setState] = useAtom(notificationsAtom);
  const [open, setOpen] = useState(false);
  const [loadingMore, setLoadingMore] = useState(false);
  const ref = useRef<HTMLDivElement>(null);

  // The first page (and the unread count) for this login, and again after lost pushes.
  useEffect(() => {
    if (token === null) {
      appStore.set(notificationsAtom, EMPTY_NOTIFICATIONS);
      return;
    }
    let gone = false;
    squareApi.notifications(null).then(
      (page) => {
        if (!gone) appStore.set(notificationsAtom, (s) => applyPage(s, page, true));
      },
      () => undefined,
    );
    return () => {
      gone = true;
    };
  }, [token, stale]);

  // A click outside closes the list.
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (ref.current && e.target instanceof Node && !ref.current.contains(e.target)) setOpen(false);
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [open]);

  if (token === null) return null;

  function toggle() {
    const next = !open;
    setOpen(next);
    if (next && state.unread > 0) {
      squareApi.markAllRead().then(
        () => appStore.set(notificationsAtom, (s) => markAllRead(s)),
        () => undefined,
      );
    }
  }

  async function more() {
    if (state.cursor === null) return;
    setLoadingMore(true);
    try {
      const page = await squareApi.notifications(state.cursor);
      setState((s) => applyPage(s, page, false));
    } catch {
      // The button stays for another try.
    } finally {
      setLoadingMore(false);
    }
  }

  const badge = badgeText(state.unread);
  return (
    <div className="bell" ref={ref}>
      <button
        type="button"
        className="icon-button bell__button"
        aria-expanded={open}
        aria-haspopup="true"
        aria-label={state.unread > 0 ? t('notifications.bellUnread', { count: state.unread }) : t('notifications.bell')}
        onClick={toggle}
        data-testid="bell"
      >
        <svg className="bell__icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
          <path d="M12 3a6 6 0 0 0-6 6v3.6L4.3 16a1 1 0 0 0 .9 1.5h13.6a1 1 0 0 0 .9-1.5L18 12.6V9a6 6 0 0 0-6-6Zm0 18a2.5 2.5 0 0 0 2.4-2h-4.8a2.5 2.5 0 0 0 2.4 2Z" fill="currentColor" />
        </svg>
        {badge !== '' && (
          <span className="bell__badge" data-testid="bell-count">
            {badge}
          </span>
        )}
      </button>
      {open && (
        <div className="bell__panel" role="dialog" aria-label={t('notifications.title')} data-testid="notifications">
          <h2 className="bell__title">{t('notifications.title')}</h2>
          {state.items.length === 0 ? (
            <p className="muted">{state.loaded ? t('notifications.none') : t('square.loading')}</p>
          ) : (
            <ul className="bell__list">
              {state.items.map((n) => (
                <li key={n.id}>
                  <a
                    href={localePath(locale, notificationPath(n))}
                    className={`bell__item${n.read ? '' : ' bell__item--unread'}`}
                    onClick={(e) => {
                      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
                      e.preventDefault();
                      setOpen(false);
                      navigate(appStore, localePath(locale, notificationPath(n)));
                    }}
                    data-testid="notification"
                    data-kind={n.kind}
                  >
                    <Avatar name={n.actor.name} url={n.actor.avatar} size={28} />
                    <span className="bell__text">
                      {line(t, n)}
                      <time className="muted bell__time" dateTime={new Date(n.create_at).toISOString()}>
                        {new Date(n.create_at).toLocaleString()}
                      </time>
                    </span>
                  </a>
                </li>
              ))}
            </ul>
          )}
          {state.cursor !== null && (
            <button type="button" className="button button--small" disabled={loadingMore} onClick={() => void more()}>
              {t('square.more')}
            </button>
          )}
        </div>
      )}
    </div>
  );
}
