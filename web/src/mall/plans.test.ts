// Plan comparison: one period at a time, and each plan's button for the viewer.
import { describe, expect, it } from 'vitest';
import { holdsPlan, periodsOf, planAction, plansOf } from './plans';
import { parseMallPath, mallPath } from './route';
import { plan, product, subscription } from './testing';

const lite = plan({ product_id: 'lite-month', plan: 'lite', product_level: 1, price: 4900, sort: 1 });
const full = plan({ sort: 2 });
const fullYear = plan({ product_id: 'full-year', period: 'year', price: 99000, sort: 2 });
const pack = product();

describe('plans', () => {
  it('lists the plans of a period in order, and the periods on sale', () => {
    expect(plansOf([full, pack, fullYear, lite], 'month').map((p) => p.product_id)).toEqual(['lite-month', 'full-month']);
    expect(plansOf([full, fullYear], 'year').map((p) => p.product_id)).toEqual(['full-year']);
    expect(periodsOf([pack, fullYear, lite])).toEqual(['month', 'year']);
    expect(periodsOf([pack])).toEqual([]);
  });

  it('offers subscribe, current, upgrade at the prorated price, or nothing', () => {
    expect(planAction(full, null, [])).toEqual({ kind: 'subscribe' });
    const onLite = subscription({ product_id: 'lite-month', plan: 'lite' });
    expect(planAction(lite, onLite, [])).toEqual({ kind: 'current' });
    const up = { product_id: 'full-month', price: 2500, currency: 'CNY', days_left: 15 };
    expect(planAction(full, onLite, [up])).toEqual({ kind: 'upgrade', price: up });
    expect(planAction(fullYear, onLite, [up])).toEqual({ kind: 'unavailable' });
    // A canceled subscription holds no plan: subscribe again.
    const canceled = subscription({ status: 'canceled' });
    expect(holdsPlan(canceled)).toBe(false);
    expect(planAction(full, canceled, [])).toEqual({ kind: 'subscribe' });
  });
});

describe('mall routes', () => {
  it('parses and builds the mall paths', () => {
    expect(parseMallPath('/mall')).toBe('mall');
    expect(parseMallPath('/mall/')).toBe('mall');
    expect(parseMallPath('/mall/return')).toBe('return');
    expect(parseMallPath('/mall/orders')).toBe('orders');
    expect(parseMallPath('/mall/subscription')).toBe('subscription');
    expect(parseMallPath('/mall/other')).toBeNull();
    expect(parseMallPath('/mallx')).toBeNull();
    expect(mallPath('return', 'a b')).toBe('/mall/return?order_id=a%20b');
    expect(mallPath('orders')).toBe('/mall/orders');
    expect(mallPath('mall')).toBe('/mall');
  });
});
