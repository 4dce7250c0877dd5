// The face-photo popup (spec 3 §7): once per page load the app asks
// `face-photo/get` for the popup to show now (the server applies targeting,
// schedule, frequency cap and "don't show again", and records the show; it
// counts days in the account's pinned zone, else in the browser's, sent as
// `tz`);
// closing is recorded, "don't show again" ends it for this viewer. A popup
// closed today (the browser's day, as the server counts it for a viewer in
// this zone) is also remembered in local storage (spec 1 §5).
import { useEffect, useId, useRef, useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { homeApi } from './api';
import { browserZone, closedToday, localDay, rememberClosed } from './carousel';
import type { PopupView } from './types';
import './home.css';

export function FacePopup() {
  const t = useT();
  const id = useId();
  const lang = useAtomValue(localeAtom);
  const loggedIn = useAtomValue(loggedInAtom);
  const [popup, setPopup] = useState<PopupView | null>(null);
  const [never, setNever] = useState(false);
  const asked = useRef<string | null>(null);
  const ref = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const who = loggedIn ? 'account' : 'visitor';
    if (asked.current === who) return;
    asked.current = who;
    homeApi
      .popup(lang, browserZone())
      .then((a) => {
        if (!a.show || a.popup === null) return;
        if (closedToday(window.localStorage, localDay(Date.now())).includes(a.popup.id)) return;
        setNever(false);
        setPopup(a.popup);
      })
      .catch(() => undefined);
  }, [lang, loggedIn]);

  useEffect(() => {
    const d = ref.current;
    if (popup !== null && d && !d.open) d.showModal();
  }, [popup]);

  if (popup === null) return null;

  function close(action: 'close' | 'click') {
    if (popup === null) return;
    rememberClosed(window.localStorage, localDay(Date.now()), popup.id);
    void homeApi.markPopup(popup.id, action).catch(() => undefined);
    if (never) void homeApi.dontPop(popup.id).catch(() => undefined);
    ref.current?.close();
    setPopup(null);
  }

  const external = popup.link !== '' && !popup.link.startsWith('/');
  return (
    <dialog ref={ref} className="modal face-popup" aria-labelledby={`${id}-title`} data-testid="face-popup" onCancel={() => close('close')}>
      {popup.image !== '' && <img className="face-popup__image" src={popup.image} alt="" />}
      <h2 id={`${id}-title`}>{popup.title}</h2>
      {popup.body !== '' && <p className="face-popup__body">{popup.body}</p>}
      <div className="face-popup__actions">
        {popup.link !== '' &&
          (external ? (
            <a className="button button--primary" href={popup.link} rel="noopener noreferrer" onClick={() => close('click')}>
              {t('home.popup.open')}
            </a>
          ) : (
            <Link className="button button--primary" to={popup.link} onClick={() => close('click')}>
              {t('home.popup.open')}
            </Link>
          ))}
        <button type="button" className="button" data-testid="face-popup-close" onClick={() => close('close')}>
          {t('home.popup.close')}
        </button>
      </div>
      {popup.allow_dont_pop && (
        <label className="face-popup__never">
          <input type="checkbox" data-testid="face-popup-never" checked={never} onChange={(e) => setNever(e.target.checked)} />
          {t('home.popup.never')}
        </label>
      )}
    </dialog>
  );
}
