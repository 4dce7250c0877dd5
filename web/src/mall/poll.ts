// Following one order until it settles: ask every 2 s, stop on paid, failed, refunded or
// disputed, give up after ~2 min (the page then offers to keep waiting). `nudge()` asks at
// once (a frame 13 `order.paid` arrived).
import { isApiError } from '../api/client';
import type { OrderView } from '../api/mall';
import { POLL_INTERVAL_MS, pollStep } from './rules';

export interface PollHandlers {
  fetch: (orderId: string) => Promise<OrderView>;
  onOrder: (order: OrderView) => void;
  /** Polling ended: the order settled, the time ran out, or the order does not exist (`missing`). */
  onEnd: (why: 'settled' | 'timeout' | 'missing', error?: unknown) => void;
}

export interface OrderPoll {
  stop(): void;
  nudge(): void;
}

export function startOrderPoll(orderId: string, h: PollHandlers): OrderPoll {
  const startedAt = Date.now();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  let inFlight = false;

  async function tick(): Promise<void> {
    if (stopped || inFlight) return;
    inFlight = true;
    timer = null;
    let status: OrderView['status'] | null = null;
    try {
      const order = await h.fetch(orderId);
      if (stopped) return;
      h.onOrder(order);
      status = order.status;
    } catch (e) {
      if (stopped) return;
      // A missing order will not appear by waiting; a network hiccup might pass.
      if (isApiError(e) && (e.key === 'OrderNotFound' || e.key === 'NotFound' || e.code === 20000)) {
        stopped = true;
        h.onEnd('missing', e);
        return;
      }
    } finally {
      inFlight = false;
    }
    const step = pollStep(status, startedAt, Date.now());
    if (step === 'wait') {
      timer = setTimeout(() => void tick(), POLL_INTERVAL_MS);
    } else {
      stopped = true;
      h.onEnd(step);
    }
  }

  void tick();
  return {
    stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
    },
    nudge() {
      if (stopped || inFlight) return;
      if (timer !== null) clearTimeout(timer);
      void tick();
    },
  };
}
