import { useEffect, useId, useRef } from 'react';
import type { KeyboardEvent } from 'react';
import { useT } from '../i18n/useT';
import { useAtom } from '../state/jotai';
import { loginDialogAtom } from './atoms';
import { FinalStepForm } from './FinalStepForm';
import { LoginForm } from './LoginForm';
import { PhoneLoginForm } from './PhoneLoginForm';
import { VerifyStep } from './VerifyStep';
import { ProviderButtons } from './ProviderButtons';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select, textarea, [tabindex]:not([tabindex="-1"])';

/**
 * The login popup: a modal dialog with the login-types step (log in / sign up)
 * and the final step (complete a status-3 profile). Escape or the backdrop
 * closes it; focus stays inside while open and returns to the opener after.
 */
export function LoginDialog() {
  const [state, setState] = useAtom(loginDialogAtom);
  const t = useT();
  const titleId = useId();
  const dialogRef = useRef<HTMLDivElement>(null);

  const open = state.open;
  useEffect(() => {
    if (!open) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialogRef.current?.querySelector<HTMLElement>('input')?.focus();
    document.body.classList.add('modal-open');
    return () => {
      document.body.classList.remove('modal-open');
      if (opener?.isConnected) opener.focus();
    };
  }, [open]);

  if (!state.open) return null;

  const close = () => setState({ open: false });

  function onKeyDown(e: KeyboardEvent<HTMLDivElement>) {
    if (e.key === 'Escape') {
      e.stopPropagation();
      close();
      return;
    }
    if (e.key !== 'Tab' || !dialogRef.current) return;
    const items = Array.from(dialogRef.current.querySelectorAll<HTMLElement>(FOCUSABLE));
    const first = items[0];
    const last = items[items.length - 1];
    if (!first || !last) return;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  }

  const title =
    state.step === 'final-step'
      ? t('login.titleFinal')
      : state.step === 'verify'
        ? t('mail.verifyTitle')
        : state.step === 'signup'
          ? t('login.titleSignup')
          : t('login.titleLogin');

  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && close()}>
      <div
        ref={dialogRef}
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        onKeyDown={onKeyDown}
      >
        <header className="modal__header">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="icon-button" aria-label={t('login.close')} onClick={close}>
            ×
          </button>
        </header>
        {state.step === 'final-step' ? (
          <FinalStepForm key={state.tempToken} tempToken={state.tempToken} initialName={state.name} />
        ) : state.step === 'verify' ? (
          <VerifyStep email={state.email} />
        ) : (
          <>
            <LoginForm mode={state.step} onModeChange={(step) => setState({ open: true, step })} />
            {state.step === 'login' && <PhoneLoginForm />}
            <ProviderButtons />
          </>
        )}
      </div>
    </div>
  );
}
