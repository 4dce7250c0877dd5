// The cancel dialog: a reason and optional text (sent as feedback), then the retention offer
// when the server makes one (accept keeps the plan at a discount; decline cancels).
import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { CANCEL_REASONS } from '../api/mall';
import type { CancelReason, RetentionInfo, SubscriptionView } from '../api/mall';
import { Dialog } from '../generator/Dialog';
import { useT } from '../i18n/useT';
import { acceptOffer, declineOffer, submitCancel } from './cancelFlow';
import { useErrorText, usePrice } from './hooks';
import { mallApi } from './services';

interface Props {
  sub: SubscriptionView;
  onClose: () => void;
  /** The subscription after the flow, and whether the offer was accepted. */
  onDone: (sub: SubscriptionView, kept: boolean) => void;
}

export function CancelDialog({ sub, onClose, onDone }: Props) {
  const t = useT();
  const price = usePrice();
  const errorText = useErrorText();
  const textId = useId();
  const [reason, setReason] = useState<CancelReason>('too_expensive');
  const [text, setText] = useState('');
  const [offer, setOffer] = useState<RetentionInfo | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function run(step: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await step();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    void run(async () => {
      const out = await submitCancel(mallApi, sub, reason, text.trim());
      if (out.kind === 'offer') setOffer(out.offer);
      else onDone(out.sub, false);
    });
  }

  const errorLine = error && (
    <p className="form-error" role="alert">
      {error}
    </p>
  );

  if (offer) {
    return (
      // A fresh dialog (its own key) so focus moves into the offer.
      <Dialog key="offer" title={t('mall.cancel.offerTitle', { n: offer.percent_off })} closeLabel={t('login.close')} onClose={onClose} className="mall-modal">
        <p data-testid="retention-offer">
          {t('mall.cancel.offer', { discounted: price(offer.discounted_price ?? 0, offer.currency ?? sub.currency), price: price(offer.price ?? sub.price, offer.currency ?? sub.currency) })}
        </p>
        {errorLine}
        <div className="mall-actions">
          <button type="button" className="button button--primary" disabled={busy} onClick={() => void run(async () => onDone(await acceptOffer(mallApi, sub, offer), true))}>
            {t('mall.cancel.accept')}
          </button>
          <button type="button" className="button" disabled={busy} onClick={() => void run(async () => onDone(await declineOffer(mallApi, sub, reason, text.trim()), false))}>
            {t('mall.cancel.decline')}
          </button>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog title={t('mall.cancel.title')} closeLabel={t('login.close')} onClose={onClose} className="mall-modal">
      <form onSubmit={onSubmit}>
        <fieldset className="mall-reasons">
          <legend>{t('mall.cancel.why')}</legend>
          {CANCEL_REASONS.map((r) => (
            <label key={r}>
              <input type="radio" name="cancel-reason" value={r} checked={reason === r} onChange={() => setReason(r)} /> {t(`mall.cancel.reason.${r}`)}
            </label>
          ))}
        </fieldset>
        <div className="field">
          <label htmlFor={textId}>{t('mall.cancel.text')}</label>
          <textarea id={textId} value={text} maxLength={1000} rows={3} onChange={(e) => setText(e.currentTarget.value)} />
        </div>
        {errorLine}
        <div className="mall-actions">
          <button type="submit" className="button button--primary" disabled={busy}>
            {t('mall.cancel.continue')}
          </button>
          <button type="button" className="button" onClick={onClose}>
            {t('mall.cancel.keep')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
