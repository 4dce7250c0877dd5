// Applies a login answer (log in, final step, or refusal) for the popup's forms.
import { useCallback } from 'react';
import type { LoginData } from '../api/types';
import { session } from '../app/services';
import { showToast } from '../app/toast';
import type { ErrorMessage } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { appStore } from '../state/jotai';
import { loginDialogAtom } from './atoms';
import { loginOutcome } from './loginFlow';
import { switchToStoredLocale } from './storedLocale';

/** Returns a handler that acts on a login answer, or returns the message to show. */
export function useApplyLogin(): (data: LoginData) => ErrorMessage | null {
  const t = useT();
  return useCallback(
    (data: LoginData) => {
      const outcome = loginOutcome(data);
      switch (outcome.kind) {
        case 'logged-in':
          session.completeLogin(outcome.token, outcome.account);
          void switchToStoredLocale(appStore);
          showToast(appStore, t('login.success', { name: outcome.account.name }));
          return null;
        case 'final-step':
          appStore.set(loginDialogAtom, {
            open: true,
            step: 'final-step',
            tempToken: outcome.tempToken,
            name: outcome.account.name,
          });
          return null;
        case 'refused':
          return { key: outcome.message };
      }
    },
    [t],
  );
}
