// `/{locale}/mall/orders`: the buy log, newest first, paged with "Load more"; each order
// with its status badge and, expanded, its steps; an unpaid order can be paid again.
import { useEffect, useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import type { BuyLogPage, OrderView } from '../api/mall';
import { useT } from '../i18n/useT';
import { appStore, useAtomValue } from '../state/jotai';
import { followOrder } from './buy';
import { useDate, useErrorText, usePrice } from './hooks';
import { mallApi } from './services';
import './mall.css';

export const ORDERS_PAGE_SIZE = 20;

export interface LogState {
  items: OrderView[];
  cursor: string | null;
  done: boolean;
  loading: boolean;
  error: unknown;
}

const EMPTY: LogState = { items: [], cursor: null, done: false, loading: false, error: null };

/** The log with the next page appended (an order already shown is not repeated). */
export function appendPage(from: LogState, page: BuyLogPage): LogState {
  const seen = new Set(from.items.map((o) => o.order_id));
  return {
    items: [...from.items, ...page.items.filter((o) => !seen.has(o.order_id))],
    cursor: page.next_cursor,
    done: page.next_cursor === null,
    loading: false,
    error: null,
  };
}

function OrderRow({ order }: { order: OrderView }) {
  const t = useT();
  const price = usePrice();
  const date = useDate();
  const errorText = useErrorText();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const unpaid = order.status === 'created' || order.status === 'pending';
  async function pay() {
    setBusy(true);
    setError(null);
    try {
      const c = await mallApi.reopenCheckout(order.order_id);
      followOrder(appStore, { ...order, ...c });
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <li className="mall-order" data-testid="order-row" data-order-id={order.order_id}>
      <details>
        <summary>
          <span className="mall-order__name">{order.product_name}</span>
          <span className="muted">{t(`mall.kind.${order.kind}`)}</span>
          <span>{price(order.amount, order.currency)}</span>
          <span className="muted">{date(order.create_at)}</span>
          <span className={`mall-status mall-status--${order.status}`} data-status={order.status}>
            {t(`mall.status.${order.status}`)}
          </span>
        </summary>
        <p className="muted mall-small">{order.order_id}</p>
        {order.refunded > 0 && <p>{t('mall.orders.refunded', { price: price(order.refunded, order.currency) })}</p>}
        <h4>{t('mall.orders.steps')}</h4>
        <ol className="mall-steps">
          {order.steps.map((s, i) => (
            <li key={`${s.at}-${i}`}>
              <span className={`mall-status mall-status--${s.status}`}>{t(`mall.status.${s.status}`)}</span>{' '}
              <time dateTime={new Date(s.at).toISOString()}>{new Date(s.at).toLocaleString()}</time>
              {s.cause !== '' && <span className="muted"> · {s.cause}</span>}
            </li>
          ))}
        </ol>
      </details>
      {unpaid && (
        <button type="button" className="button button--primary" disabled={busy} onClick={() => void pay()}>
          {t('mall.orders.continue')}
        </button>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}

export function OrdersPage() {
  const t = useT();
  const errorText = useErrorText();
  const loggedIn = useAtomValue(loggedInAtom);
  const [log, setLog] = useState<LogState>({ ...EMPTY, loading: loggedIn });

  useEffect(() => {
    if (!loggedIn) return;
    let live = true;
    mallApi.buyLog(ORDERS_PAGE_SIZE, null).then(
      (page) => live && setLog(appendPage(EMPTY, page)),
      (error: unknown) => live && setLog({ ...EMPTY, error }),
    );
    return () => {
      live = false;
    };
  }, [loggedIn]);

  function more() {
    const from = log;
    setLog({ ...from, loading: true, error: null });
    mallApi.buyLog(ORDERS_PAGE_SIZE, from.cursor).then(
      (page) => setLog(appendPage(from, page)),
      (error: unknown) => setLog({ ...from, loading: false, error }),
    );
  }

  return (
    <div className="mall mall--narrow" data-testid="mall-orders">
      <h1>{t('mall.orders.title')}</h1>
      {!loggedIn && <p>{t('mall.loginToBuy')}</p>}
      {log.items.length === 0 && log.done && <p className="muted">{t('mall.orders.empty')}</p>}
      <ul className="mall-orders">
        {log.items.map((o) => (
          <OrderRow key={o.order_id} order={o} />
        ))}
      </ul>
      {log.error !== null && (
        <p className="form-error" role="alert">
          {errorText(log.error)}
        </p>
      )}
      {loggedIn && !log.done && (
        <button type="button" className="button" disabled={log.loading} aria-busy={log.loading} onClick={more}>
          {log.loading ? t('mall.loading') : log.error !== null ? t('mall.retry') : t('mall.orders.more')}
        </button>
      )}
    </div>
  );
}
