import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { isApiError } from '../api/client';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { squareApi } from '../square/actions';
import type { VideoReportReason } from '../square/types';
import { useErrorText } from '../tavern/useErrorText';
import { charCount } from '../tavern/extras';
import { checkVideoReport, REPORT_DETAIL_MAX, VIDEO_REPORT_REASONS } from './videoWork';

/**
 * Reports someone else's video post (`ai-video/report`): a reason and a
 * detail (needed for "other"). Shows the thanks when sent, or the answer's
 * own message when the server refuses (e.g. too many reports).
 */
export function ReportVideoDialog({ workId, onClose }: { workId: string; onClose: () => void }) {
  const t = useT();
  const errorText = useErrorText();
  const ids = { reason: useId(), detail: useId() };
  const [reason, setReason] = useState<VideoReportReason | ''>('');
  const [detail, setDetail] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<'sent' | 'updated' | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (sending) return;
    const problem = checkVideoReport(reason, detail);
    if (problem !== null || reason === '') {
      setError(t(`works.report.${problem ?? 'reasonNeeded'}`, { max: REPORT_DETAIL_MAX }));
      return;
    }
    setSending(true);
    setError(null);
    try {
      const updated = await squareApi.reportVideo(workId, reason, detail);
      setDone(updated ? 'updated' : 'sent');
    } catch (err) {
      // The envelope's own message (the server names the rule); a translated text when it has none.
      setError(isApiError(err) && err.msg.trim() !== '' ? err.msg : errorText(err));
    } finally {
      setSending(false);
    }
  }

  if (done !== null) {
    return (
      <Dialog title={t('works.report.title')} closeLabel={t('tavern.dialog.close')} onClose={onClose} className="work-dialog">
        <p role="status" data-testid="report-done">
          {t(done === 'updated' ? 'works.report.updated' : 'works.report.sent')}
        </p>
        <div className="tavern-dialog__buttons">
          <button type="button" className="button button--primary" onClick={onClose}>
            {t('tavern.dialog.close')}
          </button>
        </div>
      </Dialog>
    );
  }

  const needed = reason === 'other';
  return (
    <Dialog title={t('works.report.title')} closeLabel={t('tavern.dialog.close')} onClose={onClose} className="work-dialog">
      <form className="work-report__form" onSubmit={(e) => void submit(e)} noValidate data-testid="report-form">
        <p className="muted">{t('works.report.intro')}</p>
        <div className="field">
          <label htmlFor={ids.reason}>{t('works.report.reason')}</label>
          <select
            id={ids.reason}
            value={reason}
            onChange={(e) => {
              setReason(e.target.value as VideoReportReason | '');
              setError(null);
            }}
          >
            <option value="">{t('works.report.choose')}</option>
            {VIDEO_REPORT_REASONS.map((r) => (
              <option key={r} value={r}>
                {t(`works.report.reason.${r}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.detail}>{t('works.report.detail')}</label>
          <textarea
            id={ids.detail}
            rows={3}
            value={detail}
            aria-required={needed}
            aria-invalid={charCount(detail.trim()) > REPORT_DETAIL_MAX}
            onChange={(e) => {
              setDetail(e.target.value);
              setError(null);
            }}
          />
          <span className="muted work-form__count">
            {t(needed ? 'works.report.detailRequired' : 'works.report.detailOptional')} · {charCount(detail.trim())}/{REPORT_DETAIL_MAX}
          </span>
        </div>
        {error !== null && (
          <p className="sq-error" role="alert">
            {error}
          </p>
        )}
        <div className="tavern-dialog__buttons">
          <button type="button" className="button" onClick={onClose}>
            {t('tavern.form.cancel')}
          </button>
          <button type="submit" className="button button--danger" disabled={sending}>
            {sending ? t('works.report.sending') : t('works.report.send')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
