import { useState } from 'react';
import { loggedInAtom, loginDialogAtom } from '../account/atoms';
import { ApiError } from '../api/client';
import { localePath } from '../router/locale';
import { localeAtom, navigate } from '../router/router';
import { appStore, useAtomValue, useSetAtom } from '../state/jotai';
import { tavernApi } from './actions';
import { tavernPath } from './route';
import { useErrorText } from './useErrorText';

/**
 * "Chat now": asks quick-chat/can-talk, starts a new session and opens it in
 * one click; a visitor gets the login dialog instead.
 */
export function useQuickChat() {
  const errorText = useErrorText();
  const locale = useAtomValue(localeAtom);
  const loggedIn = useAtomValue(loggedInAtom);
  const setLoginDialog = useSetAtom(loginDialogAtom);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function start(characterId: string) {
    if (!loggedIn) {
      setLoginDialog({ open: true, step: 'login' });
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const answer = await tavernApi.canTalk(characterId);
      if (!answer.can_talk) {
        if (answer.reason === 'NeedLogin') {
          setLoginDialog({ open: true, step: 'login' });
          setBusy(false);
          return;
        }
        throw new ApiError({ code: 0, key: answer.reason === '' ? null : answer.reason, msg: answer.reason }, 200);
      }
      const sessionId = await tavernApi.createSession(characterId);
      navigate(appStore, localePath(locale, tavernPath({ view: 'chat', characterId, sessionId })));
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  }

  return { start, busy, error };
}
