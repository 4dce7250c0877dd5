// The shop page against a mocked API: prices and badges, the live preview
// on one's own avatar, buying after a confirmation that shows price and
// balance (refused when short), wearing and taking off (the account's
// header ornament follows), and "my ornaments".
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { accountAtom, tokenAtom } from '../account/atoms';
import { en } from '../i18n/en';
import { appStore, Provider } from '../state/jotai';
import { ornamentApi } from './actions';
import { ShopPage } from './ShopPage';
import type { ShopItem, Worn } from './types';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;
let bought: string[];
let available: number;

const item = (id: string, extra: Partial<ShopItem> = {}): ShopItem => ({
  ornament_id: id, slot: 'avatar', name: `Name ${id}`, description: '', price: 300, image: { url: `/files/${id}.png` },
  active: true, sort: 0, limited: null, sold: 0, owned: false, worn: false, ...extra,
});
const worn = (avatarId: string | null): Worn => ({ avatar: avatarId && `/files/${avatarId}.png`, avatar_id: avatarId, work_frame: null, work_frame_id: null });

async function flush() {
  await act(async () => {
    for (let i = 0; i < 6; i++) await Promise.resolve();
  });
}

function tile(id: string): HTMLElement {
  const el = container.querySelector<HTMLElement>(`[data-testid="ornament-item"][data-id="${id}"]`);
  if (!el) throw new Error(`no tile ${id}`);
  return el;
}

function buttonIn(el: Element | null | undefined, text: string): HTMLButtonElement {
  const b = [...(el?.querySelectorAll('button') ?? [])].find((x) => x.textContent === text);
  if (!b) throw new Error(`no button ${text}`);
  return b;
}

async function render() {
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  act(() => {
    root.render(
      <Provider store={appStore}>
        <ShopPage />
      </Provider>,
    );
  });
  await flush();
}

beforeEach(async () => {
  bought = [];
  available = 1000;
  appStore.set(tokenAtom, 'tok');
  appStore.set(accountAtom, { id: 'a1', name: 'Ada', email: 'a@example.com', create_at: 1, status: 1 });
  vi.spyOn(ornamentApi, 'list').mockImplementation(async (slot) => ({
    items: slot === 'avatar' ? [item('halo'), item('crown', { owned: true, limited: 5, sold: 2 })] : [item('gilt', { slot: 'work_frame', price: 50 })],
    next_cursor: null,
  }));
  vi.spyOn(ornamentApi, 'assets').mockImplementation(async () => ({ balance: available, held: 0, available }));
  vi.spyOn(ornamentApi, 'buy').mockImplementation(async (id) => {
    bought.push(id);
    return { ornament_id: id, charged: 300, bought: true, balance: available - 300 };
  });
  vi.spyOn(ornamentApi, 'wear').mockImplementation(async (id) => worn(id));
  vi.spyOn(ornamentApi, 'cancelWear').mockImplementation(async () => worn(null));
  vi.spyOn(ornamentApi, 'orders').mockResolvedValue({
    items: [{ ornament_id: 'crown', slot: 'avatar', name: 'Name crown', image: { url: '/files/crown.png' }, price: 300, ledger_key: 'ornament:a1:crown', at: 1_700_000_000_000 }],
    next_cursor: null,
  });
  await render();
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
  vi.restoreAllMocks();
  appStore.set(tokenAtom, null);
  appStore.set(accountAtom, null);
});

describe('ShopPage', () => {
  it('lists ornaments with prices, badges and stock, and previews one on my avatar', async () => {
    expect(tile('halo').querySelector('[data-testid="ornament-price"]')?.textContent).toBe('300 credits');
    expect(tile('crown').textContent).toContain(en['ornaments.owned']);
    expect(tile('crown').textContent).toContain('3 left');
    buttonIn(tile('crown'), en['ornaments.action.wear']);
    const preview = () => container.querySelector('[data-testid="ornament-preview"] [data-testid="ornament-overlay"]')?.getAttribute('src');
    expect(preview()).toBeUndefined();
    act(() => tile('halo').click());
    expect(preview()).toBe('/files/halo.png');
    expect(bought).toEqual([]);
  });

  it('buys after a confirmation showing the price and the balance', async () => {
    await act(async () => buttonIn(tile('halo'), en['ornaments.action.buy']).click());
    await flush();
    const dialog = container.querySelector('[role="dialog"]');
    expect(dialog?.querySelector('[data-testid="buy-summary"]')?.textContent).toContain('It costs 300 credits. You have 1000 credits available.');
    await act(async () => buttonIn(dialog, 'Pay 300 credits').click());
    await flush();
    expect(bought).toEqual(['halo']);
    expect(container.querySelector('[role="dialog"]')).toBeNull();
    expect(tile('halo').textContent).toContain(en['ornaments.owned']);
    buttonIn(tile('halo'), en['ornaments.action.wear']);
  });

  it('refuses to pay when the balance is short', async () => {
    available = 100;
    await act(async () => buttonIn(tile('halo'), en['ornaments.action.buy']).click());
    await flush();
    const dialog = container.querySelector('[role="dialog"]');
    expect(dialog?.textContent).toContain(en['ornaments.buy.short']);
    expect(buttonIn(dialog, 'Pay 300 credits').disabled).toBe(true);
    expect(bought).toEqual([]);
  });

  it('wears and takes off; the account shows what is worn', async () => {
    await act(async () => buttonIn(tile('crown'), en['ornaments.action.wear']).click());
    await flush();
    expect(appStore.get(accountAtom)?.ornament).toBe('/files/crown.png');
    expect(tile('crown').textContent).toContain(en['ornaments.worn']);
    await act(async () => buttonIn(tile('crown'), en['ornaments.action.takeOff']).click());
    await flush();
    expect(appStore.get(accountAtom)?.ornament).toBeNull();
    expect(tile('crown').textContent).not.toContain(en['ornaments.worn']);
  });

  it('shows work frames and my purchases in their tabs', async () => {
    await act(async () => buttonIn(container, en['ornaments.tab.frame']).click());
    await flush();
    expect(tile('gilt').textContent).toContain('50 credits');
    act(() => tile('gilt').click());
    expect(container.querySelector('[data-testid="ornament-preview"] [data-testid="work-frame"]')?.getAttribute('src')).toBe('/files/gilt.png');
    await act(async () => buttonIn(container, en['ornaments.tab.mine']).click());
    await flush();
    const orders = container.querySelectorAll('[data-testid="ornament-order"]');
    expect(orders).toHaveLength(1);
    expect(orders[0]?.textContent).toContain('Name crown');
  });
});
