// The report dialog for any reported object (`report`): a work, a comment,
// a character or a channel message. Reasons from the fixed list (as
// `report/reasons` answers, else the built-in copy) plus details; the
// server's refusals ("already reported", "your own", too many) shown by key.
import { useEffect, useId, useState } from 'react';
import type { FormEvent } from 'react';
import { Dialog } from '../generator/Dialog';
import type { MessageKey } from '../i18n/messages';
import { isMessageKey } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { requireLogin } from '../square/actions';
import { useErrorText } from '../tavern/useErrorText';
import { moderationApi } from './actions';
import type { ObjRef, ReasonInfo } from './api';
import { charCount, checkReport, REPORT_REASONS, TEXT_MAX } from './model';
import './moderation.css';

/** The fixed list as the server answered it once per page load. */
let serverReasons: Promise<readonly ReasonInfo[]> | null = null;

function reasonList(): Promise<readonly ReasonInfo[]> {
  serverReasons ??= moderationApi
    .reasons()
    .then((r) => (r.length > 0 ? r : REPORT_REASONS))
    .catch(() => {
      serverReasons = null;
      return REPORT_REASONS;
    });
  return serverReasons;
}

export function reportTitleKey(objType: number): MessageKey {
  const key = `moderation.report.title.${objType}`;
  return isMessageKey(key) ? key : 'moderation.report.title.4';
}

export function ReportDialog({ obj, onClose }: { obj: ObjRef; onClose: () => void }) {
  const t = useT();
  const errorText = useErrorText();
  const ids = { text: useId(), hint: useId() };
  const [reasons, setReasons] = useState<readonly ReasonInfo[]>(REPORT_REASONS);
  const [reason, setReason] = useState('');
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState(false);
  const title = t(reportTitleKey(obj.obj_type));

  useEffect(() => {
    let gone = false;
    void reasonList().then((r) => {
      if (!gone) setReasons(r);
    });
    return () => {
      gone = true;
    };
  }, []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (sending) return;
    const problem = checkReport(reasons, reason, text);
    if (problem !== null) {
      setError(t(`moderation.report.${problem}`, { max: TEXT_MAX }));
      return;
    }
    setSending(true);
    setError(null);
    try {
      await moderationApi.report(obj, reason, text);
      setSent(true);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setSending(false);
    }
  }

  if (sent) {
    return (
      <Dialog title={title} closeLabel={t('moderation.report.close')} onClose={onClose} className="mod-dialog">
        <p role="status" data-testid="report-done">
          {t('moderation.report.sent')}
        </p>
        <div className="mod-dialog__buttons">
          <button type="button" className="button button--primary" onClick={onClose}>
            {t('moderation.report.close')}
          </button>
        </div>
      </Dialog>
    );
  }

  const needsText = reasons.find((r) => r.reason === reason)?.needs_text ?? false;
  const reasonKey = (r: string): string => {
    const key = `moderation.report.reason.${r}`;
    return isMessageKey(key) ? t(key) : r;
  };
  return (
    <Dialog title={title} closeLabel={t('moderation.report.close')} onClose={onClose} className="mod-dialog">
      <form onSubmit={(e) => void submit(e)} noValidate data-testid="report-form">
        <p className="muted">{t('moderation.report.intro')}</p>
        <fieldset className="mod-dialog__reasons">
          <legend>{t('moderation.report.reason')}</legend>
          {reasons.map((r) => (
            <label key={r.reason} className="mod-dialog__reason">
              <input
                type="radio"
                name="report-reason"
                value={r.reason}
                checked={reason === r.reason}
                onChange={() => {
                  setReason(r.reason);
                  setError(null);
                }}
              />
              {reasonKey(r.reason)}
            </label>
          ))}
        </fieldset>
        <div className="field">
          <label htmlFor={ids.text}>{t('moderation.report.text')}</label>
          <textarea
            id={ids.text}
            rows={3}
            value={text}
            aria-describedby={ids.hint}
            aria-required={needsText}
            aria-invalid={charCount(text.trim()) > TEXT_MAX}
            onChange={(e) => {
              setText(e.target.value);
              setError(null);
            }}
          />
          <span id={ids.hint} className="muted mod-count">
            {t(needsText ? 'moderation.report.textRequired' : 'moderation.report.textOptional')} · {charCount(text.trim())}/{TEXT_MAX}
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
          <button type="submit" className="button button--danger" disabled={sending}>
            {sending ? t('moderation.report.sending') : t('moderation.report.send')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** A "Report" button that asks a visitor to log in first and opens the dialog. */
export function ReportButton({ obj, label, className, testId }: { obj: ObjRef; label?: string; className?: string; testId?: string }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className={className ?? 'button'}
        aria-label={label}
        onClick={() => (requireLogin() ? setOpen(true) : undefined)}
        data-testid={testId ?? 'report-button'}
      >
        {t('moderation.report.open')}
      </button>
      {open && <ReportDialog obj={obj} onClose={() => setOpen(false)} />}
    </>
  );
}
