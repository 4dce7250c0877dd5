// One entry of the moderators' queue: the object (picture or text, its
// owner, its NSFW score when it has one, its moderation state), the reports
// grouped on it (count, reasons, the latest) or the owner's appeal, its
// history, and the one-click actions, each asking for a reason.
import { useState } from 'react';
import { Link } from '../app/Link';
import { showToast } from '../app/toast';
import { useT } from '../i18n/useT';
import type { MessageKey } from '../i18n/messages';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { profilePath } from '../square/route';
import { appStore, useAtomValue } from '../state/jotai';
import { moderationApi } from './actions';
import type { QueueItem } from './api';
import { BanFields } from './BanFields';
import { actionLabel, objLabel, objPath, reasonLabel, when } from './labels';
import type { BanDuration, ItemButton } from './model';
import { afterAction, itemButtons, openAppeal, reasonsByCount, scoreText } from './model';
import { ReasonDialog } from './ReasonDialog';

const BUTTON_KEYS: Record<ItemButton, MessageKey> = {
  hide: 'moderation.action.hide',
  unhide: 'moderation.action.unhide',
  feedBan: 'moderation.action.feedBan',
  feedUnban: 'moderation.action.feedUnban',
  resolve: 'moderation.action.resolve',
  dismiss: 'moderation.action.dismiss',
  keep: 'moderation.action.keep',
  restore: 'moderation.action.restore',
  unflag: 'moderation.action.unflag',
  banOwner: 'moderation.action.banOwner',
};

const DANGER: ReadonlySet<ItemButton> = new Set(['hide', 'feedBan', 'banOwner']);

/** Runs one button's call(s); answers what the answer tells about the item beyond a fresh read. */
async function run(item: QueueItem, button: ItemButton, reason: string, banSecs: BanDuration): Promise<Partial<QueueItem>> {
  const obj = { obj_id: item.obj_id, obj_type: item.obj_type };
  const appeal = openAppeal(item);
  switch (button) {
    case 'hide':
    case 'unhide':
    case 'feedBan':
    case 'feedUnban':
    case 'resolve':
    case 'dismiss':
      await moderationApi.act(button, obj, reason);
      return {};
    case 'keep':
    case 'restore':
    case 'unflag': {
      if (appeal === null) return {};
      // Keeping leaves the rating; accepting (unflag, or restore) rates the work safe.
      const nsfw = button === 'keep' ? item.summary.nsfw : false;
      const decided = await moderationApi.decide(appeal.appeal_id, button === 'restore' ? { nsfw, restore: true } : { nsfw }, reason);
      if (button === 'restore') {
        // A server that does not restore with the decision: lift the state with the same reason.
        const now = await moderationApi.item(obj).catch(() => null);
        const state = now?.moderation?.state ?? null;
        if (state !== null) await moderationApi.act(state === 'hidden' ? 'unhide' : 'feedUnban', obj, reason);
      }
      return { appeal: { ...appeal, ...decided } };
    }
    case 'banOwner':
      await moderationApi.ban(item.owner, reason, banSecs);
      return {};
  }
}

export function QueueItemCard({ item, onChanged }: { item: QueueItem; onChanged: (item: QueueItem) => void }) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const [acting, setActing] = useState<ItemButton | null>(null);
  const [banSecs, setBanSecs] = useState<BanDuration>(86400);
  const obj = { obj_id: item.obj_id, obj_type: item.obj_type };
  const path = objPath(obj);
  const s = item.summary;
  const score = scoreText(s.nsfw_score);
  const appeal = item.appeal ?? null;
  const reports = item.reports ?? null;
  const object = s.title || objLabel(t, item.obj_type);

  async function confirm(button: ItemButton, reason: string) {
    const patch = await run(item, button, reason, banSecs);
    setActing(null);
    showToast(appStore, t('moderation.action.done', { action: t(BUTTON_KEYS[button]) }));
    // The object may be gone from the server's view: then the card keeps what it knows.
    const fresh = await moderationApi.item(obj).catch(() => null);
    onChanged(afterAction(item, fresh, patch));
  }

  return (
    <li className="mod-item" data-testid="queue-item" data-kind={item.kind} data-obj-type={item.obj_type} data-obj-id={item.obj_id} data-state={item.moderation?.state ?? 'visible'}>
      <div className="mod-item__media">
        {s.cover ? <img src={s.cover} alt="" className={s.nsfw ? 'mod-item__cover mod-item__cover--nsfw' : 'mod-item__cover'} /> : <div className="mod-item__text-cover">{s.text.slice(0, 140)}</div>}
      </div>
      <div className="mod-item__body">
        <p className="mod-item__line">
          <span className={`mod-badge mod-badge--${item.kind}`}>{t(item.kind === 'report' ? 'moderation.kind.report' : 'moderation.kind.appeal')}</span>
          <span className="mod-badge">{objLabel(t, item.obj_type)}</span>
          {s.nsfw && <span className="mod-badge mod-badge--nsfw">{t('moderation.item.nsfw')}</span>}
          {score !== null && (
            <span className="mod-badge" data-testid="nsfw-score">
              {t('moderation.item.nsfwScore', { score })}
            </span>
          )}
          {s.gone && <span className="mod-badge">{t('moderation.item.gone')}</span>}
        </p>
        <h3 className="mod-item__title">
          {path !== null ? <Link to={localePath(locale, path)}>{object}</Link> : object}
        </h3>
        {item.owner !== '' && (
          <p className="muted">
            <Link to={localePath(locale, profilePath(item.owner))}>{t('moderation.item.owner', { name: item.owner_name || item.owner })}</Link>
          </p>
        )}
        {s.text !== '' && s.cover && <p className="mod-item__text">{s.text}</p>}
        {item.moderation && (
          <p className="mod-item__state" data-testid="item-state">
            {t(item.moderation.state === 'hidden' ? 'moderation.item.state.hidden' : 'moderation.item.state.feed_banned', { reason: item.moderation.reason })}
          </p>
        )}
        {reports && reports.count > 0 && (
          <div className="mod-item__reports">
            <p>
              <strong>{reports.count === 1 ? t('moderation.item.report') : t('moderation.item.reports', { count: reports.count })}</strong>{' '}
              {reasonsByCount(reports.reasons).map(([r, n]) => (
                <span key={r} className="mod-badge mod-badge--reason">
                  {reasonLabel(t, r)} × {n}
                </span>
              ))}
            </p>
            <ul className="mod-item__report-list">
              {reports.items.slice(0, 5).map((r) => (
                <li key={`${r.reporter}:${r.create_at}`}>
                  {r.text !== '' ? t('moderation.item.reportLine', { reason: reasonLabel(t, r.reason), text: r.text }) : reasonLabel(t, r.reason)}{' '}
                  <time className="muted">{when(r.create_at)}</time>
                </li>
              ))}
            </ul>
          </div>
        )}
        {appeal && (
          <p className="mod-item__appeal" data-testid="appeal-text">
            {t('moderation.item.appealText', { text: appeal.text })}
          </p>
        )}
        <details className="mod-item__history">
          <summary>{t('moderation.item.history')}</summary>
          {item.history.length === 0 ? (
            <p className="muted">{t('moderation.item.noHistory')}</p>
          ) : (
            <ul>
              {item.history.map((h) => (
                <li key={h.id}>
                  <time className="muted">{when(h.create_at)}</time> {h.actor_name || h.actor} {actionLabel(t, h.action)}: {h.reason}
                </li>
              ))}
            </ul>
          )}
        </details>
        <div className="mod-item__actions" role="group" aria-label={t('moderation.item.actions')}>
          {itemButtons(item).map((b) => (
            <button key={b} type="button" className={`button button--small${DANGER.has(b) ? ' button--danger' : ''}`} onClick={() => setActing(b)} data-action={b}>
              {t(BUTTON_KEYS[b])}
            </button>
          ))}
        </div>
      </div>
      {acting !== null && (
        <ReasonDialog
          title={t('moderation.action.title', { action: t(BUTTON_KEYS[acting]), object })}
          confirmLabel={t(BUTTON_KEYS[acting])}
          danger={DANGER.has(acting)}
          onConfirm={(reason) => confirm(acting, reason)}
          onClose={() => setActing(null)}
        >
          {acting === 'banOwner' && <BanFields duration={banSecs} onDuration={setBanSecs} />}
        </ReasonDialog>
      )}
    </li>
  );
}
