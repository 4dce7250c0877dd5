import { useEffect, useState } from 'react';
import { loginDialogAtom, tokenAtom } from '../account/atoms';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, locationAtom, navigate, routeAtom } from '../router/router';
import { appStore, useAtomValue, useSetAtom } from '../state/jotai';
import { loadChannels } from './actions';
import { channelListStaleAtom, openChannelAtom, pendingInviteAtom } from './atoms';
import { ChannelList } from './ChannelList';
import { ChannelView } from './ChannelView';
import { CreateChannelDialog } from './CreateChannelDialog';
import { InviteConfirm } from './InviteConfirm';
import { readInvite, saveInvite, takeInviteFromSearch } from './invite';
import { watchMemberNotices } from './pushHook';
import { channelIdFromPath, channelPath } from './route';
import { useErrorText } from './useErrorText';
import './channels.css';

/** `/{locale}/channels` and `/{locale}/channels/{id}`: the IM channels screen. */
export function ChannelsPage() {
  const t = useT();
  const errorText = useErrorText();
  const token = useAtomValue(tokenAtom);
  const locale = useAtomValue(localeAtom);
  const location = useAtomValue(locationAtom);
  const channelId = channelIdFromPath(useAtomValue(routeAtom).rest);
  const stale = useAtomValue(channelListStaleAtom);
  const setOpenChannel = useSetAtom(openChannelAtom);
  const setLoginDialog = useSetAtom(loginDialogAtom);
  const invite = useAtomValue(pendingInviteAtom);
  const setInvite = useSetAtom(pendingInviteAtom);
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<string | null>(null);

  // `?invite=CODE`: keep the code in localStorage and drop it from the address.
  useEffect(() => {
    const { code, search } = takeInviteFromSearch(location.search);
    if (search === location.search) return;
    if (code !== null) saveInvite(code);
    setInvite(code ?? readInvite());
    navigate(appStore, `${location.pathname}${search}${location.hash}`, { replace: true });
  }, [location, setInvite]);

  // Member changes pushed as frame 13 (read from the frame log while services.ts forwards only frame 12).
  useEffect(() => watchMemberNotices(), []);

  useEffect(() => {
    setOpenChannel(channelId);
    return () => setOpenChannel(null);
  }, [channelId, setOpenChannel]);

  useEffect(() => {
    if (token === null) return;
    loadChannels()
      .then(() => setError(null))
      .catch((err: unknown) => setError(errorText(err)));
  }, [token, stale, errorText]);

  function open(id: string | null) {
    navigate(appStore, localePath(locale, channelPath(id)));
  }

  if (token === null) {
    return (
      <section className="channels channels--out">
        <h1>{t('channels.title')}</h1>
        <p>{invite !== null ? t('channels.joinLoginFirst') : t('channels.loggedOut')}</p>
        <button type="button" className="button button--primary" onClick={() => setLoginDialog({ open: true, step: 'login' })}>
          {t('header.logIn')}
        </button>
      </section>
    );
  }

  return (
    <section className={`channels${channelId !== null ? ' channels--open' : ''}`} data-testid="channels-page">
      <div className="channels__sidebar">
        <div className="channels__sidebar-head">
          <h1 className="channels__title">{t('channels.title')}</h1>
          <button type="button" className="button button--primary" onClick={() => setCreating(true)}>
            {t('channels.create')}
          </button>
        </div>
        {error !== null && (
          <p className="channels__error" role="alert">
            {error}
          </p>
        )}
        <ChannelList selected={channelId} />
      </div>
      <div className="channels__content">
        {channelId !== null ? (
          <>
            <Link to={localePath(locale, channelPath(null))} className="channels__back">
              ← {t('channels.back')}
            </Link>
            <ChannelView key={channelId} channelId={channelId} />
          </>
        ) : (
          <p className="channels__note channels__pick">{t('channels.pick')}</p>
        )}
      </div>
      {creating && (
        <CreateChannelDialog
          onClose={() => setCreating(false)}
          onCreated={(id) => {
            setCreating(false);
            open(id);
          }}
        />
      )}
      {invite !== null && !creating && (
        <InviteConfirm
          code={invite}
          onDone={(id) => {
            setInvite(null);
            if (id !== null) open(id);
          }}
        />
      )}
    </section>
  );
}
