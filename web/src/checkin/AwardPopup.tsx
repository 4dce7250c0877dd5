// The award popup: awards granted and not shown yet ("First post of the
// day: +20 stamina"), read from `face-photo/mark-user-activity-award-list`
// (which marks them seen) once per signed-in page load and whenever frame 13
// announces one.
import { useEffect } from 'react';
import { loggedInAtom } from '../account/atoms';
import { api } from '../app/services';
import { Dialog } from '../generator/Dialog';
import type { MessageKey } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { appStore, useAtom, useAtomValue } from '../state/jotai';
import { checkinApi } from './api';
import { awardQueueAtom, awardsStaleAtom } from './atoms';
import type { AwardView } from './model';
import { awardTitle, awardTotal, mergeAwards } from './model';
import './checkin.css';

export function AwardPopup() {
  const t = useT();
  const loggedIn = useAtomValue(loggedInAtom);
  const stale = useAtomValue(awardsStaleAtom);
  const [queue, setQueue] = useAtom(awardQueueAtom);

  useEffect(() => {
    if (!loggedIn) return;
    checkinApi(api)
      .takeAwards()
      .then((list) => {
        if (list.length > 0) appStore.set(awardQueueAtom, (q) => mergeAwards(q, list));
      })
      // Offline or signed out meanwhile: the awards stay unseen for the next load.
      .catch(() => undefined);
  }, [loggedIn, stale]);

  if (!loggedIn || queue.length === 0) return null;
  const title = (a: AwardView) => awardTitle(a, (trigger) => t(`awards.trigger.${trigger}` as MessageKey));
  return (
    <Dialog title={t('awards.title')} closeLabel={t('checkin.close')} onClose={() => setQueue([])} className="award-popup">
      <ul className="award-popup__list" data-testid="award-popup">
        {queue.map((a) => (
          <li key={a.key} data-testid="award-item" data-trigger={a.trigger}>
            <span className="award-popup__star" aria-hidden="true">
              ★
            </span>{' '}
            {t('awards.line', { title: title(a), n: a.amount })}
          </li>
        ))}
      </ul>
      {queue.length > 1 && <p className="muted">{t('awards.total', { n: awardTotal(queue) })}</p>}
      <button type="button" className="button button--primary" data-testid="award-ok" onClick={() => setQueue([])}>
        {t('awards.ok')}
      </button>
    </Dialog>
  );
}
