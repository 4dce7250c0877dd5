// The owner's side of moderation on their own work's page: why a moderator
// hid it or took it out of the feeds, that it is rated sensitive, and the
// appeal (`resource/nsfw-appeal/create`) with the appeals left today
// (`resource/nsfw-appeal/rate-limit`); after sending, the appeal's state.
import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { useErrorText } from '../tavern/useErrorText';
import { useLoaded } from '../tavern/useLoaded';
import { moderationApi } from './actions';
import type { AppealLimit, AppealStatus, ObjectModeration, ObjRef } from './api';
import { charCount, TEXT_MAX } from './model';
import './moderation.css';

/** What the owner's work detail says about moderation. */
export interface OwnerModeration {
  moderation?: ObjectModeration | null;
  appeal?: { appeal_id: string; status: AppealStatus; reason: string } | null;
  nsfw: boolean;
}

export function OwnerNotice({ obj, work }: { obj: ObjRef; work: OwnerModeration }) {
  const t = useT();
  const [appealing, setAppealing] = useState(false);
  const [sent, setSent] = useState(false);
  const m = work.moderation ?? null;
  const appeal = work.appeal ?? null;
  if (m === null && !work.nsfw && appeal === null) return null;

  const status: AppealStatus | null = sent ? 'open' : (appeal?.status ?? null);
  return (
    <section className={`mod-owner${m !== null ? ' mod-owner--hidden' : ''}`} role="status" data-testid="owner-moderation" data-state={m?.state ?? (work.nsfw ? 'flagged' : '')}>
      {m !== null ? (
        <>
          <p className="mod-owner__title">{t(m.state === 'hidden' ? 'moderation.owner.hidden' : 'moderation.owner.feedBanned')}</p>
          <p data-testid="owner-moderation-reason">{t('moderation.owner.reason', { reason: m.reason })}</p>
        </>
      ) : (
        work.nsfw && <p className="mod-owner__title">{t('moderation.owner.flagged')}</p>
      )}
      {status === null ? (
        <button type="button" className="button" onClick={() => setAppealing(true)} data-testid="appeal-button">
          {t('moderation.owner.appeal')}
        </button>
      ) : (
        <p className="muted" data-testid="appeal-status" data-status={status}>
          {status === 'open'
            ? t(sent ? 'moderation.owner.appealSent' : 'moderation.owner.appealOpen')
            : t(status === 'kept' ? 'moderation.owner.appealKept' : 'moderation.owner.appealChanged', { reason: appeal?.reason ?? '' })}
        </p>
      )}
      {appealing && (
        <AppealDialog
          obj={obj}
          onClose={() => setAppealing(false)}
          onSent={() => {
            setAppealing(false);
            setSent(true);
          }}
        />
      )}
    </section>
  );
}

function AppealDialog({ obj, onClose, onSent }: { obj: ObjRef; onClose: () => void; onSent: () => void }) {
  const t = useT();
  const errorText = useErrorText();
  const ids = { text: useId(), hint: useId() };
  const limit = useLoaded(() => moderationApi.appealLimit(), [], null as AppealLimit | null);
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const none = limit.value !== null && limit.value.remaining <= 0;

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (sending) return;
    const trimmed = text.trim();
    if (trimmed === '') {
      setError(t('moderation.owner.textNeeded'));
      return;
    }
    if (charCount(trimmed) > TEXT_MAX) {
      setError(t('moderation.report.textTooLong', { max: TEXT_MAX }));
      return;
    }
    setSending(true);
    setError(null);
    try {
      await moderationApi.appeal(obj, trimmed);
      onSent();
    } catch (err) {
      setError(errorText(err));
      setSending(false);
    }
  }

  return (
    <Dialog title={t('moderation.owner.appealTitle')} closeLabel={t('moderation.report.close')} onClose={onClose} className="mod-dialog">
      <form onSubmit={(e) => void submit(e)} noValidate data-testid="appeal-form">
        <p className="muted">{t('moderation.owner.appealIntro')}</p>
        {limit.value !== null && (
          <p data-testid="appeal-remaining" data-remaining={limit.value.remaining}>
            {none
              ? t('moderation.owner.appealNone', { time: new Date(limit.value.reset_at).toLocaleString() })
              : t('moderation.owner.appealRemaining', { remaining: limit.value.remaining, limit: limit.value.limit })}
          </p>
        )}
        {limit.failed && (
          <p className="sq-error" role="alert">
            {errorText(limit.error)}
          </p>
        )}
        <div className="field">
          <label htmlFor={ids.text}>{t('moderation.owner.appealText')}</label>
          <textarea
            id={ids.text}
            rows={4}
            value={text}
            aria-describedby={ids.hint}
            aria-required
            onChange={(e) => {
              setText(e.target.value);
              setError(null);
            }}
          />
          <span id={ids.hint} className="muted mod-count">
            {charCount(text.trim())}/{TEXT_MAX}
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
          <button type="submit" className="button button--primary" disabled={sending || none}>
            {sending ? t('moderation.report.sending') : t('moderation.owner.appealSend')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
