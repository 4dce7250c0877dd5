// The ornament shop's calls (`/api/v1/ornament-shop/*`) on the app's API
// client; every call is a POST answering the envelope, unwrapped by the client.
import type { ApiClient } from '../api/client';
import type { Assets, BuyResult, OrderPage, Ornament, OrnamentDraft, ShopItem, ShopPage, Slot, Worn } from './types';

const SHOP = '/api/v1/ornament-shop/';

export class OrnamentApi {
  constructor(private readonly api: Pick<ApiClient, 'post'>) {}

  private call<T>(path: string, body: unknown = {}): Promise<T> {
    return this.api.post<T>(`${SHOP}${path}`, body);
  }

  list(slot: Slot | null, cursor: string | null = null, pageSize = 40): Promise<ShopPage> {
    return this.call<ShopPage>('list', { slot, cursor, page_size: pageSize });
  }

  async other(accountId: string): Promise<ShopItem[]> {
    return (await this.call<{ items: ShopItem[] }>('other-list', { account_id: accountId })).items;
  }

  /** Account id -> the avatar ornament it wears, for those wearing one. */
  async wornOf(accountIds: string[]): Promise<Record<string, string>> {
    if (accountIds.length === 0) return {};
    return (await this.call<{ items: Record<string, string> }>('worn-of', { account_ids: accountIds.slice(0, 200) })).items;
  }

  buy(ornamentId: string): Promise<BuyResult> {
    return this.call<BuyResult>('buy', { ornament_id: ornamentId });
  }

  wear(ornamentId: string): Promise<Worn> {
    return this.call<Worn>('wear', { ornament_id: ornamentId });
  }

  cancelWear(slot: Slot): Promise<Worn> {
    return this.call<Worn>('cancel-wear', { slot });
  }

  orders(cursor: string | null = null, pageSize = 20): Promise<OrderPage> {
    return this.call<OrderPage>('order-list', { cursor, page_size: pageSize });
  }

  wearWorkFrame(workId: string, ornamentId: string | null): Promise<{ work_id: string; frame: Ornament | null }> {
    return this.call('wear-work-frame', { work_id: workId, ornament_id: ornamentId });
  }

  workFrame(workId: string): Promise<{ work_id: string; frame: Ornament | null }> {
    return this.call('work-frame-work', { work_id: workId });
  }

  // Operators ---------------------------------------------------------------

  async adminList(): Promise<Ornament[]> {
    return (await this.api.post<{ items: Ornament[] }>('/api/v1/admin/ornament/list', {})).items;
  }

  adminUpsert(draft: OrnamentDraft): Promise<Ornament> {
    return this.api.post<Ornament>('/api/v1/admin/ornament/upsert', draft);
  }

  assets(): Promise<Assets> {
    return this.api.post<Assets>('/api/v1/payment/assets/get', {});
  }
}
