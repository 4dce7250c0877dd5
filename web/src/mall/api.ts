// The mall's calls on the app's API client (COMMON "The mall's API"): products, orders,
// the buy log, subscriptions and the popups' information. Every call but the recent
// purchases (GET) is a POST under /api/v1 answering the envelope.
import type { ApiClient } from '../api/client';
import type {
  AssetsAnswer,
  BuyLogPage,
  CancelReason,
  CreatedOrder,
  CreateOrderRequest,
  DiscountInfo,
  DiscountPopupInfo,
  GrayInfo,
  OrderStatus,
  OrderView,
  PauseInfo,
  Product,
  RecentRecord,
  RenewalAnswer,
  RetentionInfo,
  SubDetail,
  SubList,
  SubscriptionView,
  UpgradePrice,
} from '../api/mall';

const V1 = '/api/v1/';

function list<T>(d: unknown): T[] {
  const v = typeof d === 'object' && d !== null ? (d as { items?: unknown }).items : undefined;
  return Array.isArray(v) ? (v as T[]) : [];
}

export class MallApi {
  /**
   * `locale` names the page's locale; calls that open a checkout send it so the provider
   * returns the buyer to `/{locale}/mall/return`.
   */
  constructor(
    private readonly api: Pick<ApiClient, 'post' | 'get'>,
    private readonly locale: () => string | null = () => null,
  ) {}

  private withLocale<B extends object>(body: B): B & { locale?: string } {
    const locale = this.locale();
    return locale ? { ...body, locale } : body;
  }

  private call<T>(path: string, body: unknown = {}): Promise<T> {
    return this.api.post<T>(`${V1}${path}`, body);
  }

  async products(): Promise<Product[]> {
    return list<Product>(await this.call<unknown>('payment/product/list-web'));
  }

  async subList(): Promise<SubList> {
    const d = await this.call<Partial<SubList>>('payment/product/sub-list');
    return { items: list<Product>(d), current: d.current ?? null };
  }

  /** A credit pack (`create`) or a plan (`create-sub`), by the product's kind. */
  createOrder(product: Pick<Product, 'product_id' | 'kind'>, options: Omit<CreateOrderRequest, 'product_id'> = {}): Promise<CreatedOrder> {
    const path = product.kind === 'subscription' ? 'payment/order/create-sub' : 'payment/order/create';
    return this.call<CreatedOrder>(path, this.withLocale({ product_id: product.product_id, ...options }));
  }

  reopenCheckout(orderId: string): Promise<{ order_id: string; status: OrderStatus; checkout_url: string | null }> {
    return this.call('payment/order-checkout', this.withLocale({ order_id: orderId }));
  }

  orderStatus(orderId: string): Promise<OrderView> {
    return this.call<OrderView>('payment/order/status', { order_id: orderId });
  }

  async buyLog(pageSize: number, cursor: string | null): Promise<BuyLogPage> {
    const d = await this.call<Partial<BuyLogPage>>('payment/buy/log', { page_size: pageSize, cursor });
    const next = typeof d.next_cursor === 'string' && d.next_cursor !== '' ? d.next_cursor : null;
    return { items: list<OrderView>(d), next_cursor: next };
  }

  async recentRecords(): Promise<RecentRecord[]> {
    return list<RecentRecord>(await this.api.get<unknown>(`${V1}payment/order/calculate/recent-record`));
  }

  assets(): Promise<AssetsAnswer> {
    return this.call<AssetsAnswer>('payment/assets/get');
  }

  async discounts(): Promise<DiscountInfo> {
    const d = await this.call<Partial<DiscountInfo>>('payment/assets/discount');
    return { eligible: d.eligible === true, off_rate: d.off_rate ?? 0, items: Array.isArray(d.items) ? d.items : [] };
  }

  discountPopup(): Promise<DiscountPopupInfo> {
    return this.call<DiscountPopupInfo>('payment/discount/popup-info');
  }

  grayInfo(): Promise<GrayInfo> {
    return this.call<GrayInfo>('payment/gray-info');
  }

  retentionInfo(): Promise<RetentionInfo> {
    return this.call<RetentionInfo>('payment/calculate/retention-popup-info');
  }

  subDetail(): Promise<SubDetail> {
    return this.call<SubDetail>('payment/order/sub-detail');
  }

  async upgradePrices(): Promise<UpgradePrice[]> {
    return list<UpgradePrice>(await this.call<unknown>('payment/order/batch-upgrade-price'));
  }

  upgrade(productId: string): Promise<CreatedOrder> {
    return this.call<CreatedOrder>('payment/order/upgrade', this.withLocale({ product_id: productId }));
  }

  renew(subId: string): Promise<RenewalAnswer> {
    return this.call<RenewalAnswer>('payment/order/renewal-sub', this.withLocale({ sub_id: subId }));
  }

  pauseInfo(): Promise<PauseInfo> {
    return this.call<PauseInfo>('payment/order/pause-info');
  }

  /** `months` 0 resumes. */
  pause(subId: string, months: number): Promise<SubscriptionView> {
    return this.call<SubscriptionView>('payment/order/pause-sub', { sub_id: subId, months });
  }

  stopRenewal(subId: string): Promise<SubscriptionView> {
    return this.call<SubscriptionView>('payment/order/clear-renewal-sub', { sub_id: subId });
  }

  async feedback(subId: string, reason: CancelReason, text: string): Promise<void> {
    await this.call<unknown>('payment/order/feedback', { sub_id: subId, reason, text });
  }

  cancel(subId: string, reason: CancelReason, text: string): Promise<SubscriptionView> {
    return this.call<SubscriptionView>('payment/order/cancel-sub-user', { sub_id: subId, reason, text });
  }

  acceptRetention(subId: string): Promise<SubscriptionView> {
    return this.call<SubscriptionView>('payment/order/retention-accept', { sub_id: subId });
  }

  portal(): Promise<{ url: string }> {
    return this.call<{ url: string }>('payment/order/portal', this.withLocale({}));
  }
}
