// The ornament shop page (`/{locale}/ornaments`, spec 3 §7): avatar
// ornaments and work frames, bought with credits (a confirm dialog with
// the price and the balance), worn and taken off, a live preview of the
// selected ornament on the viewer's own avatar, and "my ornaments" (the
// purchases, newest first).
import { useState } from 'react';
import { accountAtom, loggedInAtom } from '../account/atoms';
import { requireLogin } from '../square/actions';
import { ConfirmDialog } from '../tavern/ConfirmDialog';
import { useErrorText } from '../tavern/useErrorText';
import { useLoaded } from '../tavern/useLoaded';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';
import { ornamentApi, setMyOrnament } from './actions';
import { AdminPanel } from './AdminPanel';
import { OrnamentAvatar, WorkFrameOverlay } from './OrnamentAvatar';
import { applyBought, applyWorn, canAfford, itemAction, stockLeft } from './shop';
import type { OrderPage, ShopItem, ShopPage as Page, Slot, Worn } from './types';
import './ornaments.css';

type Tab = Slot | 'mine';

export function ShopPage() {
  const t = useT();
  const errorText = useErrorText();
  const loggedIn = useAtomValue(loggedInAtom);
  const account = useAtomValue(accountAtom);
  const myOrnament = account?.ornament ?? null;
  const [tab, setTab] = useState<Tab>('avatar');
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<ShopItem | null>(null);
  const [buying, setBuying] = useState<ShopItem | null>(null);
  const [available, setAvailable] = useState<number | null>(null);
  const [pending, setPending] = useState(false);
  const [dialogError, setDialogError] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  // The first page of the tab (again when the viewer logs in or out: the flags change).
  const shop = useLoaded<Page | null>(() => (tab === 'mine' ? Promise.resolve(null) : ornamentApi.list(tab)), [tab, loggedIn], null);
  const items = shop.value?.items ?? [];
  const cursor = shop.value?.next_cursor ?? null;
  const setItems = (change: (old: ShopItem[]) => ShopItem[]) => shop.setValue((p) => (p === null ? p : { ...p, items: change(p.items) }));

  async function more() {
    if (tab === 'mine' || cursor === null) return;
    setLoadingMore(true);
    try {
      const page = await ornamentApi.list(tab, cursor);
      shop.setValue((p) => (p === null ? page : { items: [...p.items, ...page.items], next_cursor: page.next_cursor }));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setLoadingMore(false);
    }
  }

  function openTab(next: Tab) {
    setSelected(null);
    setError(null);
    setTab(next);
  }

  function applyWornAnswer(worn: Worn) {
    setItems((old) => applyWorn(old, worn));
    setMyOrnament(worn.avatar);
  }

  async function openBuy(item: ShopItem) {
    if (!requireLogin()) return;
    setBuying(item);
    setDialogError(null);
    setAvailable(null);
    try {
      setAvailable((await ornamentApi.assets()).available);
    } catch (e) {
      setDialogError(errorText(e));
    }
  }

  async function confirmBuy() {
    if (buying === null) return;
    setPending(true);
    setDialogError(null);
    try {
      await ornamentApi.buy(buying.ornament_id);
      setItems((old) => applyBought(old, buying.ornament_id));
      setSelected((s) => (s !== null && s.ornament_id === buying.ornament_id ? { ...s, owned: true } : s));
      setBuying(null);
    } catch (e) {
      setDialogError(errorText(e));
    } finally {
      setPending(false);
    }
  }

  async function act(item: ShopItem) {
    const action = itemAction(item, loggedIn);
    setError(null);
    try {
      if (action === 'login') requireLogin();
      else if (action === 'buy') await openBuy(item);
      else if (action === 'wear') applyWornAnswer(await ornamentApi.wear(item.ornament_id));
      else if (action === 'takeOff') applyWornAnswer(await ornamentApi.cancelWear(item.slot));
    } catch (e) {
      setError(errorText(e));
    }
  }

  const name = account?.name ?? '';
  // The preview: the selected avatar ornament on the viewer's avatar, else what is worn.
  const previewOrnament = selected?.slot === 'avatar' ? selected.image.url : myOrnament;
  return (
    <section className="orn-shop" data-testid="ornament-shop">
      <div className="orn-shop__head">
        <h1>{t('ornaments.title')}</h1>
        <div className="orn-shop__preview" data-testid="ornament-preview" aria-label={t('ornaments.preview')}>
          <OrnamentAvatar name={name || '?'} ornament={previewOrnament} size={56} />
          <div className="orn-item__picture" style={{ width: 96 }}>
            <span className="muted">{t('ornaments.previewWork')}</span>
            <WorkFrameOverlay url={selected?.slot === 'work_frame' ? selected.image.url : null} />
          </div>
        </div>
      </div>
      <div className="orn-shop__tabs" role="tablist">
        {(['avatar', 'work_frame', 'mine'] as const).map((x) => (
          <button key={x} type="button" role="tab" aria-selected={tab === x} className="button button--link orn-shop__tab" onClick={() => openTab(x)}>
            {t(x === 'avatar' ? 'ornaments.tab.avatar' : x === 'work_frame' ? 'ornaments.tab.frame' : 'ornaments.tab.mine')}
          </button>
        ))}
      </div>
      {(error ?? (shop.failed ? errorText(shop.error) : null)) !== null && (
        <p role="alert" className="tavern__error">
          {error ?? errorText(shop.error)}
        </p>
      )}
      {tab === 'mine' ? (
        <MyOrnaments />
      ) : (
        <>
          {!shop.loading && !shop.failed && items.length === 0 && <p className="muted">{t('ornaments.empty')}</p>}
          <ul className="orn-grid">
            {items.map((item) => (
              <ShopTile key={item.ornament_id} item={item} selected={selected?.ornament_id === item.ornament_id} loggedIn={loggedIn} onSelect={() => setSelected(item)} onAct={() => void act(item)} />
            ))}
          </ul>
          {cursor !== null && (
            <button type="button" className="button" disabled={loadingMore} onClick={() => void more()}>
              {t('ornaments.more')}
            </button>
          )}
        </>
      )}
      {account?.admin === true && <AdminPanel onSaved={shop.reload} />}
      {buying !== null && (
        <ConfirmDialog
          title={t('ornaments.buy.title', { name: buying.name })}
          message={
            <span data-testid="buy-summary">
              {t('ornaments.buy.price', { price: buying.price })}{' '}
              {available === null ? t('ornaments.buy.balanceLoading') : t('ornaments.buy.balance', { balance: available })}
              {available !== null && !canAfford(buying.price, available) && (
                <>
                  {' '}
                  <strong>{t('ornaments.buy.short')}</strong>
                </>
              )}
            </span>
          }
          confirmLabel={t('ornaments.buy.confirm', { price: buying.price })}
          pending={pending || available === null || !canAfford(buying.price, available)}
          error={dialogError}
          onConfirm={() => void confirmBuy()}
          onCancel={() => setBuying(null)}
        />
      )}
    </section>
  );
}

function ShopTile({ item, selected, loggedIn, onSelect, onAct }: { item: ShopItem; selected: boolean; loggedIn: boolean; onSelect: () => void; onAct: () => void }) {
  const t = useT();
  const action = itemAction(item, loggedIn);
  const left = stockLeft(item);
  const label = {
    login: t('ornaments.action.buy'),
    buy: t('ornaments.action.buy'),
    wear: t('ornaments.action.wear'),
    takeOff: t('ornaments.action.takeOff'),
    soldOut: t('ornaments.action.soldOut'),
  }[action];
  return (
    <li className={`orn-item${selected ? ' orn-item--selected' : ''}`} data-testid="ornament-item" data-id={item.ornament_id} onClick={onSelect}>
      <div className="orn-item__picture">
        <img src={item.image.url} alt="" loading="lazy" draggable={false} />
      </div>
      <strong>{item.name}</strong>
      {item.description !== '' && <span className="muted">{item.description}</span>}
      <span data-testid="ornament-price">{item.price === 0 ? t('ornaments.free') : t('ornaments.price', { price: item.price })}</span>
      <span>
        {item.owned && <span className="orn-badge">{t('ornaments.owned')}</span>} {item.worn && <span className="orn-badge">{t('ornaments.worn')}</span>}{' '}
        {left !== null && <span className="orn-badge">{t('ornaments.left', { n: left })}</span>}
      </span>
      <button
        type="button"
        className={`button button--small${action === 'buy' ? ' button--primary' : ''}`}
        disabled={action === 'soldOut'}
        onClick={(e) => {
          e.stopPropagation();
          onSelect();
          onAct();
        }}
      >
        {label}
      </button>
    </li>
  );
}

/** The viewer's purchases, newest first. */
export function MyOrnaments() {
  const t = useT();
  const errorText = useErrorText();
  const loggedIn = useAtomValue(loggedInAtom);
  const [error, setError] = useState<string | null>(null);
  const first = useLoaded<OrderPage | null>(() => (loggedIn ? ornamentApi.orders() : Promise.resolve(null)), [loggedIn], null);
  const orders = first.value?.items ?? [];
  const cursor = first.value?.next_cursor ?? null;

  async function more() {
    if (cursor === null) return;
    try {
      const page = await ornamentApi.orders(cursor);
      first.setValue((p) => ({ items: [...(p?.items ?? []), ...page.items], next_cursor: page.next_cursor }));
    } catch (e) {
      setError(errorText(e));
    }
  }

  if (!loggedIn) return <p className="muted">{t('ornaments.loginFirst')}</p>;
  return (
    <div data-testid="my-ornaments">
      {(error !== null || first.failed) && (
        <p role="alert" className="tavern__error">
          {error ?? errorText(first.error)}
        </p>
      )}
      {!first.loading && !first.failed && orders.length === 0 && <p className="muted">{t('ornaments.noOrders')}</p>}
      <ul className="orn-orders">
        {orders.map((o) => (
          <li key={o.ornament_id} data-testid="ornament-order">
            <img src={o.image.url} alt="" />
            <span>{o.name}</span>
            <span className="muted">{t(o.slot === 'avatar' ? 'ornaments.tab.avatar' : 'ornaments.tab.frame')}</span>
            <span>{t('ornaments.price', { price: o.price })}</span>
            <time className="muted" dateTime={new Date(o.at).toISOString()}>
              {new Date(o.at).toLocaleDateString()}
            </time>
          </li>
        ))}
      </ul>
      {cursor !== null && (
        <button type="button" className="button" onClick={() => void more()}>
          {t('ornaments.more')}
        </button>
      )}
    </div>
  );
}
