// The mall's routes after the locale: `/mall`, `/mall/return?order_id=`, `/mall/orders`,
// `/mall/subscription`.

export type MallView = 'mall' | 'return' | 'orders' | 'subscription';

const VIEWS: Readonly<Record<string, MallView>> = {
  '/mall': 'mall',
  '/mall/return': 'return',
  '/mall/orders': 'orders',
  '/mall/subscription': 'subscription',
};

/** The mall view of a path after the locale (a trailing slash allowed), or null. */
export function parseMallPath(rest: string): MallView | null {
  const path = rest.length > 1 && rest.endsWith('/') ? rest.slice(0, -1) : rest;
  return VIEWS[path] ?? null;
}

/** The path (after the locale) of a mall view; the return page carries its order id. */
export function mallPath(view: MallView, orderId?: string): string {
  const base = view === 'mall' ? '/mall' : `/mall/${view}`;
  return view === 'return' && orderId ? `${base}?order_id=${encodeURIComponent(orderId)}` : base;
}
