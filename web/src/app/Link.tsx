import type { AnchorHTMLAttributes, MouseEvent } from 'react';
import { navigate } from '../router/router';
import { appStore } from '../state/jotai';

export interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  /** A same-site path with the locale (`/en/create/image?id=1`). */
  to: string;
  /** Replace the current history entry instead of adding one. */
  replace?: boolean;
}

/** An in-app link: a real href, followed through the router on a plain click (a modified click opens as the browser would). */
export function Link({ to, replace = false, onClick, ...rest }: LinkProps) {
  function handle(e: MouseEvent<HTMLAnchorElement>) {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    if (rest.target !== undefined && rest.target !== '_self') return;
    e.preventDefault();
    navigate(appStore, to, { replace });
  }
  return <a href={to} onClick={handle} {...rest} />;
}
