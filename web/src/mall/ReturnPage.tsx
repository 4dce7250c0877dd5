// `/{locale}/mall/return?order_id=…`: where the checkout sends the buyer back. It follows the
// order (poll.ts, and frame 13 `order.paid` at once) and, once paid, shows what was granted
// and refreshes the payment info and credits.
import { useEffect, useRef, useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import type { OrderView } from '../api/mall';
import { api } from '../app/services';
import { Link } from '../app/Link';
import { useT } from '../i18n/useT';
import { localePath } from '../router/locale';
import { localeAtom, locationAtom } from '../router/router';
import { appStore, useAtomValue } from '../state/jotai';
import { paidPushAtom } from './atoms';
import { useErrorText, usePrice } from './hooks';
import { startOrderPoll } from './poll';
import type { OrderPoll } from './poll';
import { refreshPaymentFacts } from './refresh';
import { mallPath } from './route';
import { mallApi } from './services';
import './mall.css';

type Phase = { kind: 'waiting' } | { kind: 'settled' } | { kind: 'timeout' } | { kind: 'missing'; error: unknown };

/** Follows one order from mount (a retry mounts a fresh one). */
function useOrderFollow(orderId: string) {
  const [order, setOrder] = useState<OrderView | null>(null);
  const [phase, setPhase] = useState<Phase>({ kind: 'waiting' });
  const poll = useRef<OrderPoll | null>(null);
  useEffect(() => {
    const p = startOrderPoll(orderId, {
      fetch: (id) => mallApi.orderStatus(id),
      onOrder: setOrder,
      onEnd: (why, error) => {
        setPhase(why === 'missing' ? { kind: 'missing', error } : { kind: why });
        if (why === 'settled') void refreshPaymentFacts(appStore, api);
      },
    });
    poll.current = p;
    return () => p.stop();
  }, [orderId]);
  const push = useAtomValue(paidPushAtom);
  useEffect(() => {
    if (push.orderId === orderId) poll.current?.nudge();
  }, [push, orderId]);
  return { order, phase };
}

function Outcome({ order }: { order: OrderView }) {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  if (order.status === 'paid') {
    return (
      <div className="mall-outcome mall-outcome--ok" role="status">
        <p>{t('mall.return.paid')}</p>
        <p data-testid="order-granted">
          {order.kind === 'credits' ? t('mall.return.grantedCredits', { n: order.coins }) : t('mall.return.grantedPlan', { name: order.product_name })}
        </p>
        <Link to={localePath(locale, '/create')} className="button button--primary">
          {t('mall.return.create')}
        </Link>
      </div>
    );
  }
  const key = order.status === 'failed' ? 'mall.return.failed' : order.status === 'refunded' ? 'mall.return.refunded' : 'mall.return.disputed';
  return (
    <p className="mall-outcome" role="status">
      {t(key)}
    </p>
  );
}

function Following({ orderId, retry }: { orderId: string; retry: () => void }) {
  const t = useT();
  const price = usePrice();
  const errorText = useErrorText();
  const { order, phase } = useOrderFollow(orderId);
  return (
    <>
      {order && (
        <dl className="mall-order-facts">
          <dt>{order.product_name}</dt>
          <dd>{price(order.amount, order.currency)}</dd>
          <dd>
            <span className={`mall-status mall-status--${order.status}`} data-testid="order-status" data-status={order.status}>
              {t(`mall.status.${order.status}`)}
            </span>
          </dd>
        </dl>
      )}
      {phase.kind === 'waiting' && (
        <p role="status" aria-busy="true" className="mall-waiting">
          <progress aria-label={t('mall.return.waiting')} /> {t('mall.return.waiting')}
        </p>
      )}
      {phase.kind === 'timeout' && (
        <p role="status" data-testid="still-waiting">
          {t('mall.return.stillWaiting')}{' '}
          <button type="button" className="button" onClick={retry}>
            {t('mall.return.checkAgain')}
          </button>
        </p>
      )}
      {phase.kind === 'missing' && (
        <p className="form-error" role="alert">
          {errorText(phase.error)}
        </p>
      )}
      {phase.kind === 'settled' && order && <Outcome order={order} />}
    </>
  );
}

export function ReturnPage() {
  const t = useT();
  const locale = useAtomValue(localeAtom);
  const search = useAtomValue(locationAtom).search;
  const orderId = new URLSearchParams(search).get('order_id')?.trim() ?? '';
  const [round, setRound] = useState(0);
  // Logging in (the order is the account's own) starts following again.
  const loggedIn = useAtomValue(loggedInAtom);
  return (
    <div className="mall mall--narrow" data-testid="mall-return">
      <h1>{t('mall.return.title')}</h1>
      {orderId === '' ? <p>{t('mall.return.noOrder')}</p> : <Following key={`${orderId}#${round}#${loggedIn}`} orderId={orderId} retry={() => setRound((r) => r + 1)} />}
      <p>
        <Link to={localePath(locale, mallPath('mall'))}>{t('mall.return.toMall')}</Link>
      </p>
    </div>
  );
}
