// The return page's follower: asks every 2 s, stops on paid/failed/refunded/disputed or a
// missing order, gives up after the limit, and asks at once when nudged by a push.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client';
import type { OrderStatus, OrderView } from '../api/mall';
import { startOrderPoll } from './poll';
import { POLL_INTERVAL_MS, POLL_LIMIT_MS } from './rules';
import { order } from './testing';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function answering(statuses: OrderStatus[]) {
  let i = 0;
  return vi.fn(async (id: string): Promise<OrderView> => order({ order_id: id, status: statuses[Math.min(i++, statuses.length - 1)] ?? 'pending' }));
}

describe('startOrderPoll', () => {
  it('asks until paid, then stops', async () => {
    const fetch = answering(['pending', 'pending', 'paid']);
    const onOrder = vi.fn();
    const onEnd = vi.fn();
    startOrderPoll('o1', { fetch, onOrder, onEnd });
    await vi.advanceTimersByTimeAsync(0);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    expect(fetch).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    expect(fetch).toHaveBeenCalledTimes(3);
    expect(onEnd).toHaveBeenCalledWith('settled');
    expect(onOrder.mock.calls.map(([o]) => (o as OrderView).status)).toEqual(['pending', 'pending', 'paid']);
    await vi.advanceTimersByTimeAsync(10 * POLL_INTERVAL_MS);
    expect(fetch).toHaveBeenCalledTimes(3);
  });

  it.each(['failed', 'refunded', 'disputed'] as const)('stops on %s', async (status) => {
    const fetch = answering(['created', status]);
    const onEnd = vi.fn();
    startOrderPoll('o1', { fetch, onOrder: () => {}, onEnd });
    await vi.advanceTimersByTimeAsync(5 * POLL_INTERVAL_MS);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(onEnd).toHaveBeenCalledExactlyOnceWith('settled');
  });

  it('gives up after the limit and keeps going through network failures', async () => {
    let n = 0;
    const fetch = vi.fn(async () => {
      n += 1;
      if (n % 3 === 0) throw new ApiError({ code: 0, key: 'NetworkError', msg: '' }, 0);
      return order({ status: 'pending' });
    });
    const onEnd = vi.fn();
    startOrderPoll('o1', { fetch, onOrder: () => {}, onEnd });
    await vi.advanceTimersByTimeAsync(POLL_LIMIT_MS - POLL_INTERVAL_MS);
    expect(onEnd).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(2 * POLL_INTERVAL_MS);
    expect(onEnd).toHaveBeenCalledExactlyOnceWith('timeout');
    const calls = fetch.mock.calls.length;
    expect(calls).toBe(POLL_LIMIT_MS / POLL_INTERVAL_MS + 1);
    await vi.advanceTimersByTimeAsync(10 * POLL_INTERVAL_MS);
    expect(fetch).toHaveBeenCalledTimes(calls);
  });

  it('stops on a missing order', async () => {
    const err = new ApiError({ code: 40400, key: 'OrderNotFound', msg: '' }, 404);
    const fetch = vi.fn(async () => Promise.reject(err));
    const onEnd = vi.fn();
    startOrderPoll('nope', { fetch, onOrder: () => {}, onEnd });
    await vi.advanceTimersByTimeAsync(5 * POLL_INTERVAL_MS);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(onEnd).toHaveBeenCalledWith('missing', err);
  });

  it('asks at once when nudged, and not at all once stopped', async () => {
    const fetch = answering(['pending', 'paid']);
    const onEnd = vi.fn();
    const poll = startOrderPoll('o1', { fetch, onOrder: () => {}, onEnd });
    await vi.advanceTimersByTimeAsync(0);
    poll.nudge();
    await vi.advanceTimersByTimeAsync(0);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(onEnd).toHaveBeenCalledWith('settled');

    const other = answering(['pending']);
    const stopped = startOrderPoll('o2', { fetch: other, onOrder: () => {}, onEnd: () => {} });
    await vi.advanceTimersByTimeAsync(0);
    stopped.stop();
    stopped.nudge();
    await vi.advanceTimersByTimeAsync(5 * POLL_INTERVAL_MS);
    expect(other).toHaveBeenCalledTimes(1);
  });
});
