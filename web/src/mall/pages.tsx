// The mall's pages by route (`/mall`, `/mall/return`, `/mall/orders`, `/mall/subscription`).
import type { ReactNode } from 'react';
import { MallPage } from './MallPage';
import { OrdersPage } from './OrdersPage';
import { ReturnPage } from './ReturnPage';
import { parseMallPath } from './route';
import { SubscriptionPage } from './SubscriptionPage';

/** The page of a mall path after the locale, or null when it is not one. */
export function mallPage(rest: string): ReactNode | null {
  switch (parseMallPath(rest)) {
    case 'mall':
      return <MallPage />;
    case 'return':
      return <ReturnPage />;
    case 'orders':
      return <OrdersPage />;
    case 'subscription':
      return <SubscriptionPage />;
    case null:
      return null;
  }
}
