// The dialog behind every moderator action: the reason (required, at most
// 500 characters, shown to the owner and written to the audit log), any
// extra fields the action needs, and the server's refusal by its key.
import { useId, useState } from 'react';
import type { FormEvent, ReactNode } from 'react';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { useErrorText } from '../tavern/useErrorText';
import { charCount, checkReason, TEXT_MAX } from './model';

export interface ReasonDialogProps {
  title: string;
  confirmLabel: string;
  /** Runs the action; a rejection shows its error and keeps the dialog open. */
  onConfirm: (reason: string) => Promise<void>;
  onClose: () => void;
  /** Fields shown above the reason (e.g. a ban's length). */
  children?: ReactNode;
  danger?: boolean;
}

export function ReasonDialog({ title, confirmLabel, onConfirm, onClose, children, danger = false }: ReasonDialogProps) {
  const t = useT();
  const errorText = useErrorText();
  const ids = { reason: useId(), hint: useId() };
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    const problem = checkReason(reason);
    if (problem !== null) {
      setError(t(`moderation.action.${problem}`, { max: TEXT_MAX }));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await onConfirm(reason.trim());
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  }

  return (
    <Dialog title={title} closeLabel={t('moderation.report.close')} onClose={onClose} className="mod-dialog">
      <form onSubmit={(e) => void submit(e)} noValidate data-testid="reason-form">
        {children}
        <div className="field">
          <label htmlFor={ids.reason}>{t('moderation.action.reason')}</label>
          <textarea
            id={ids.reason}
            rows={3}
            value={reason}
            aria-required
            aria-describedby={ids.hint}
            aria-invalid={charCount(reason.trim()) > TEXT_MAX}
            onChange={(e) => {
              setReason(e.target.value);
              setError(null);
            }}
          />
          <span id={ids.hint} className="muted mod-count">
            {t('moderation.action.reasonHint', { max: TEXT_MAX })} · {charCount(reason.trim())}/{TEXT_MAX}
          </span>
        </div>
        {error !== null && (
          <p className="sq-error" role="alert">
            {error}
          </p>
        )}
        <div className="mod-dialog__buttons">
          <button type="button" className="button" onClick={onClose}>
            {t('moderation.report.cancel')}
          </button>
          <button type="submit" className={`button ${danger ? 'button--danger' : 'button--primary'}`} disabled={busy}>
            {confirmLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
