// Plan comparison as pure functions: the plans of one billing period, lite before full, and
// what each plan's button does for the viewer (subscribe, current, upgrade, unavailable).
import type { Period, Product, SubscriptionView, UpgradePrice } from '../api/mall';

/** Plans of `period`, by sort, then level, then price. */
export function plansOf(products: readonly Product[], period: Period): Product[] {
  return products
    .filter((p) => p.kind === 'subscription' && p.period === period)
    .sort((a, b) => a.sort - b.sort || a.product_level - b.product_level || a.price - b.price);
}

/** The periods any plan is sold for, month first. */
export function periodsOf(products: readonly Product[]): Period[] {
  return (['month', 'year'] as const).filter((p) => products.some((x) => x.kind === 'subscription' && x.period === p));
}

export type PlanAction =
  | { kind: 'subscribe' }
  | { kind: 'current' }
  | { kind: 'upgrade'; price: UpgradePrice }
  | { kind: 'unavailable' };

/** A subscription that still holds a plan (a canceled one lets the user subscribe again). */
export function holdsPlan(sub: SubscriptionView | null): sub is SubscriptionView {
  return sub !== null && sub.status !== 'canceled';
}

export function planAction(plan: Product, current: SubscriptionView | null, upgrades: readonly UpgradePrice[]): PlanAction {
  if (!holdsPlan(current)) return { kind: 'subscribe' };
  if (current.product_id === plan.product_id) return { kind: 'current' };
  const up = upgrades.find((u) => u.product_id === plan.product_id);
  return up ? { kind: 'upgrade', price: up } : { kind: 'unavailable' };
}
