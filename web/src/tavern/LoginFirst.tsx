import { loginDialogAtom } from '../account/atoms';
import { useT } from '../i18n/useT';
import { useSetAtom } from '../state/jotai';

export function LoginFirst() {
  const t = useT();
  const setLoginDialog = useSetAtom(loginDialogAtom);
  return (
    <div className="tavern__empty">
      <p>{t('tavern.loginFirst')}</p>
      <button type="button" className="button button--primary" onClick={() => setLoginDialog({ open: true, step: 'login' })}>
        {t('header.logIn')}
      </button>
    </div>
  );
}
