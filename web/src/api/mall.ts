// The mall's wire types (protocol/src/mall/: product.rs, order.rs, subscription.rs) and the
// answers of the payment calls; prices and amounts are integer minor units of `currency`.
import type { PaymentInfo } from './types';

export type ProductKind = 'credits' | 'subscription';
export type Plan = 'lite' | 'full';
export type Period = 'month' | 'year';

/** A credit pack or a membership plan (`payment/product/list-web`). */
export interface Product {
  product_id: string;
  kind: ProductKind;
  name: string;
  /** Minor units of `currency` (fen for CNY). */
  price: number;
  currency: string;
  coins: number;
  plan: Plan | null;
  period: Period | null;
  product_level: number;
  infinite_queue: boolean;
  original_price: number | null;
  features: string[];
  sort: number;
}

export type OrderStatus = 'created' | 'pending' | 'paid' | 'failed' | 'refunded' | 'disputed';
export type OrderKind = 'credits' | 'subscription' | 'upgrade' | 'renewal';

export interface OrderStep {
  status: OrderStatus;
  at: number;
  cause: string;
}

/** `payment/order/status` and the items of `payment/buy/log`. */
export interface OrderView {
  order_id: string;
  status: OrderStatus;
  kind: OrderKind;
  product_id: string;
  product_name: string;
  amount: number;
  currency: string;
  coins: number;
  provider: string;
  checkout_url: string | null;
  refunded: number;
  create_at: number;
  update_at: number;
  steps: OrderStep[];
}

/** `payment/order/create`, `create-sub` and `upgrade` send this. */
export interface CreateOrderRequest {
  product_id: string;
  provider?: string;
  use_discount?: boolean;
}

/** What those calls answer; `checkout_url` is null for the manual provider. */
export interface CreatedOrder {
  order_id: string;
  status: OrderStatus;
  checkout_url: string | null;
  amount: number;
  currency: string;
  provider: string;
}

export interface BuyLogPage {
  items: OrderView[];
  next_cursor: string | null;
}

/** An item of GET `payment/order/calculate/recent-record` (names masked by the server). */
export interface RecentRecord {
  name: string;
  product_name: string;
  kind: ProductKind | OrderKind;
  at: number;
}

export type SubStatus = 'active' | 'past_due' | 'paused' | 'canceled';

export interface SubscriptionView {
  sub_id: string;
  product_id: string;
  product_name: string;
  plan: Plan;
  period: Period;
  product_level: number;
  status: SubStatus;
  auto_renew: boolean;
  current_period_start: number;
  current_period_end: number;
  paused_until: number | null;
  price: number;
  currency: string;
  provider: string;
  perks_active: boolean;
  retention_used: boolean;
  create_at: number;
}

export interface SubList {
  items: Product[];
  current: SubscriptionView | null;
}

export interface SubDetail {
  subscription: SubscriptionView | null;
  /** Stripe's customer portal is offered (card and invoices). */
  portal: boolean;
}

/** `payment/assets/get`; older servers name the settled balance `coins`. */
export interface AssetsAnswer {
  balance?: number;
  coins?: number;
  held: number;
  available: number;
  debt?: number;
}

/** `payment/assets/discount`: the account's first-plan offer, per plan (`off_rate` a whole percent). */
export interface DiscountInfo {
  eligible: boolean;
  off_rate: number;
  items: { product_id: string; price: number; discounted_price: number }[];
}

/** `off_rate` is a whole percent (50 = half price); the rest is null when there is no offer. */
export interface DiscountPopupInfo {
  show: boolean;
  off_rate: number;
  product: Product | null;
  discounted_price: number | null;
}

export interface GrayInfo {
  providers: string[];
  default_provider: string;
  currency: string;
  manual_instructions: string;
}

/** The retention offer; the prices and sub id are null when there is none (`show` false). */
export interface RetentionInfo {
  show: boolean;
  percent_off: number;
  price: number | null;
  discounted_price: number | null;
  currency?: string;
  sub_id: string | null;
}

export interface UpgradePrice {
  product_id: string;
  price: number;
  currency: string;
  days_left: number;
}

export interface PauseInfo {
  can_pause: boolean;
  months: number[];
  paused_until: number | null;
}

export interface RenewalAnswer {
  subscription: SubscriptionView;
  order: CreatedOrder | null;
}

/** Reasons `payment/order/feedback` and `cancel-sub-user` accept. */
export const CANCEL_REASONS = ['too_expensive', 'not_using', 'missing_features', 'quality', 'switching', 'other'] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];

export type { PaymentInfo };
