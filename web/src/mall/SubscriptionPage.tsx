// `/{locale}/mall/subscription`: the plan, its state, the period end and auto-renew; pause
// and resume, renewal off and on, the cancel flow, and the provider's portal for cards and
// invoices.
import { useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import type { PauseInfo, SubDetail, SubscriptionView } from '../api/mall';
import { api } from '../app/services';
import { Link } from '../app/Link';
import { showToast } from '../app/toast';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom } from '../router/router';
import { appStore, useAtomValue } from '../state/jotai';
import { followOrder } from './buy';
import { CancelDialog } from './CancelDialog';
import { useDate, useErrorText, useLoad, usePrice } from './hooks';
import { refreshPaymentFacts } from './refresh';
import { mallPath } from './route';
import { browser, isSafeUrl, mallApi } from './services';
import './mall.css';

interface Data {
  detail: SubDetail;
  pause: PauseInfo | null;
}

async function loadSubscription(): Promise<Data> {
  const detail = await mallApi.subDetail();
  const pause = detail.subscription ? await mallApi.pauseInfo().catch(() => null) : null;
  return { detail, pause };
}

function Manage({ sub, data, onChanged }: { sub: SubscriptionView; data: Data; onChanged: (s: SubscriptionView) => void }) {
  const t = useT();
  const price = usePrice();
  const date = useDate();
  const errorText = useErrorText();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [months, setMonths] = useState(data.pause?.months[0] ?? 1);
  const [canceling, setCanceling] = useState(false);

  async function act(step: () => Promise<SubscriptionView | void>) {
    setBusy(true);
    setError(null);
    try {
      const next = await step();
      if (next) onChanged(next);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  const renewOn = () =>
    act(async () => {
      const r = await mallApi.renew(sub.sub_id);
      if (r.order) followOrder(appStore, r.order);
      return r.subscription;
    });
  const portal = () =>
    act(async () => {
      const { url } = await mallApi.portal();
      if (isSafeUrl(url)) browser.go(url);
    });

  return (
    <section className="mall-card mall-sub" data-testid="subscription" data-status={sub.status} data-auto-renew={sub.auto_renew}>
      <h2>{sub.product_name}</h2>
      <p>
        <span className={`mall-status mall-status--${sub.status}`}>{t(`mall.sub.status.${sub.status}`)}</span>{' '}
        {price(sub.price, sub.currency)}
      </p>
      <p>{t('mall.sub.periodEnd', { date: date(sub.current_period_end) })}</p>
      {sub.paused_until !== null && <p>{t('mall.sub.pausedUntil', { date: date(sub.paused_until) })}</p>}
      <p>{sub.auto_renew ? t('mall.sub.renewOn') : t('mall.sub.renewOff')}</p>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {sub.status !== 'canceled' && (
        <div className="mall-actions">
          {sub.status === 'paused' ? (
            <button type="button" className="button" disabled={busy} onClick={() => void act(() => mallApi.pause(sub.sub_id, 0))}>
              {t('mall.sub.resume')}
            </button>
          ) : (
            data.pause?.can_pause && (
              <span className="mall-pause">
                <label>
                  {t('mall.sub.pauseFor')}{' '}
                  <select value={months} onChange={(e) => setMonths(Number(e.currentTarget.value))}>
                    {data.pause.months.map((m) => (
                      <option key={m} value={m}>
                        {m === 1 ? t('mall.sub.month') : t('mall.sub.months', { n: m })}
                      </option>
                    ))}
                  </select>
                </label>
                <button type="button" className="button" disabled={busy} onClick={() => void act(() => mallApi.pause(sub.sub_id, months))}>
                  {t('mall.sub.pause')}
                </button>
              </span>
            )
          )}
          {sub.auto_renew ? (
            <button type="button" className="button" disabled={busy} onClick={() => void act(() => mallApi.stopRenewal(sub.sub_id))}>
              {t('mall.sub.renewalOff')}
            </button>
          ) : (
            <button type="button" className="button" disabled={busy} onClick={() => void renewOn()}>
              {t('mall.sub.renewalOn')}
            </button>
          )}
          <button type="button" className="button button--danger" disabled={busy} onClick={() => setCanceling(true)}>
            {t('mall.sub.cancel')}
          </button>
        </div>
      )}
      {data.detail.portal && (
        <button type="button" className="button button--link" disabled={busy} onClick={() => void portal()}>
          {t('mall.sub.portal')}
        </button>
      )}
      {canceling && (
        <CancelDialog
          sub={sub}
          onClose={() => setCanceling(false)}
          onDone={(next, kept) => {
            setCanceling(false);
            onChanged(next);
            showToast(appStore, kept ? t('mall.cancel.accepted') : t('mall.cancel.done'));
          }}
        />
      )}
    </section>
  );
}

export function SubscriptionPage() {
  const t = useT();
  const errorText = useErrorText();
  const locale = useAtomValue(localeAtom);
  const loggedIn = useAtomValue(loggedInAtom);
  const [data, reload, setData] = useLoad(loadSubscription, `sub:${loggedIn}`);
  const sub = data.state === 'ready' ? data.value.detail.subscription : null;
  return (
    <div className="mall mall--narrow" data-testid="mall-subscription">
      <h1>{t('mall.sub.title')}</h1>
      {data.state === 'loading' && <p className="muted">{t('mall.loading')}</p>}
      {data.state === 'error' && (
        <p className="form-error" role="alert">
          {errorText(data.error)}{' '}
          <button type="button" className="button button--link" onClick={reload}>
            {t('mall.retry')}
          </button>
        </p>
      )}
      {data.state === 'ready' && sub === null && <p>{t('mall.sub.none')}</p>}
      {data.state === 'ready' && sub !== null && (
        <Manage
          sub={sub}
          data={data.value}
          onChanged={(next) => {
            setData({ ...data.value, detail: { ...data.value.detail, subscription: next } });
            showToast(appStore, t('mall.sub.saved'));
            void refreshPaymentFacts(appStore, api);
            // The pause options depend on the new state.
            void mallApi.pauseInfo().then((pause) => setData({ detail: { ...data.value.detail, subscription: next }, pause }), () => {});
          }}
        />
      )}
      <p>
        <Link to={localePath(locale, mallPath('mall'))}>{t('mall.sub.seePlans')}</Link>
      </p>
    </div>
  );
}
