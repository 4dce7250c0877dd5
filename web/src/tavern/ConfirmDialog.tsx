import { useEffect, useRef } from 'react';
import type { ReactNode } from 'react';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';

export interface ConfirmDialogProps {
  title: string;
  /** What happens on confirm, in a sentence. */
  message: ReactNode;
  /** The confirm button's text: the action itself ("Delete", "Replace"), not "OK". */
  confirmLabel: string;
  onConfirm: () => void;
  /** Cancel, Escape, the × and the backdrop. */
  onCancel: () => void;
  /** `danger` for deletes: a red confirm button. */
  variant?: 'primary' | 'danger';
  /** While the confirmed action runs: the confirm button is disabled. */
  pending?: boolean;
  /** The failed action's text, shown as an alert above the buttons. */
  error?: string | null;
}

/**
 * A yes/no question in the modal {@link Dialog} (Escape and the backdrop cancel, focus stays
 * inside and returns to the opener). Focus starts on Cancel, the answer that changes nothing.
 */
export function ConfirmDialog({ title, message, confirmLabel, onConfirm, onCancel, variant = 'primary', pending = false, error = null }: ConfirmDialogProps) {
  const t = useT();
  const cancelRef = useRef<HTMLButtonElement>(null);

  // Runs after Dialog's own effect (parents' effects run after their children's), which focused the ×.
  useEffect(() => {
    cancelRef.current?.focus();
  }, []);

  return (
    <Dialog title={title} closeLabel={t('tavern.dialog.close')} onClose={onCancel} className="tavern-dialog">
      <p>{message}</p>
      {error !== null && (
        <p className="tavern__error" role="alert">
          {error}
        </p>
      )}
      <div className="tavern-dialog__buttons">
        <button ref={cancelRef} type="button" className="button" onClick={onCancel}>
          {t('tavern.form.cancel')}
        </button>
        <button type="button" className={`button button--${variant}`} disabled={pending} onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
