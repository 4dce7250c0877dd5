import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { showToast } from '../app/toast';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { appStore } from '../state/jotai';
import { tavernApi } from './actions';
import { charCount, checkReport, REPORT_DETAIL_MAX, REPORT_REASONS } from './extras';
import type { ReportReason } from './extras';
import { useErrorText } from './useErrorText';
import { CharCount } from './CharCount';

/** Reports someone else's character (report/ai-character): a reason and, for "other", a detail. */
export function ReportDialog({ characterId, name, onClose }: { characterId: string; name: string; onClose: () => void }) {
  const t = useT();
  const errorText = useErrorText();
  const detailId = useId();
  const hintId = useId();
  const [reason, setReason] = useState<ReportReason | null>(null);
  const [detail, setDetail] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const length = charCount(detail.trim());
  const needed = reason === 'other';

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (sending) return;
    if (reason === null) {
      setError(t('tavern.report.reasonNeeded'));
      return;
    }
    const problem = checkReport(reason, detail);
    if (problem !== null) {
      setError(t(`tavern.report.${problem}`, { max: REPORT_DETAIL_MAX }));
      return;
    }
    setSending(true);
    setError(null);
    try {
      const updated = await tavernApi.report(characterId, reason, detail);
      showToast(appStore, t(updated ? 'tavern.report.updated' : 'tavern.report.sent', { name }));
      onClose();
    } catch (err) {
      setError(errorText(err));
      setSending(false);
    }
  }

  return (
    <Dialog title={t('tavern.report.title', { name })} closeLabel={t('tavern.dialog.close')} onClose={onClose} className="tavern-dialog report-dialog">
      <form onSubmit={(e) => void onSubmit(e)} noValidate data-testid="report-form">
        <p className="report-dialog__intro">{t('tavern.report.intro')}</p>
        <fieldset className="report-dialog__reasons">
          <legend className="field__label">
            {t('tavern.report.reason')}
          </legend>
          {REPORT_REASONS.map((r) => (
            <label key={r} className="report-dialog__reason">
              <input type="radio" name="report-reason" value={r} checked={reason === r} required onChange={() => {
                  setReason(r);
                  setError(null);
                }} />
              <span>{t(`tavern.report.reason.${r}`)}</span>
            </label>
          ))}
        </fieldset>
        <div className="field">
          <label htmlFor={detailId} className="field__label">
            {t('tavern.report.detail')}
          </label>
          <textarea
            id={detailId}
            className="tavern-input"
            rows={3}
            value={detail}
            required={needed}
            aria-required={needed}
            aria-describedby={hintId}
            aria-invalid={length > REPORT_DETAIL_MAX}
            onChange={(e) => {
              setDetail(e.target.value);
              setError(null);
            }}
          />
          <span id={hintId} className="field__hint">
            <span>{t(needed ? 'tavern.report.detailRequired' : 'tavern.report.detailOptional')}</span>
            <CharCount length={length} max={REPORT_DETAIL_MAX} />
          </span>
        </div>
        {error !== null && (
          <p className="tavern__error" role="alert">
            {error}
          </p>
        )}
        <div className="tavern-dialog__buttons">
          <button type="button" className="button" onClick={onClose}>
            {t('tavern.form.cancel')}
          </button>
          <button type="submit" className="button button--danger" aria-disabled={sending}>
            {sending ? t('tavern.report.sending') : t('tavern.report.send')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
