import type { AnchorHTMLAttributes, MouseEvent } from 'react';
import { navigate } from '../router/router';
import { appStore } from '../state/jotai';

export interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  to: string;
}

/** An in-app link: a real href, followed through the router on a plain click. */
export function Link({ to, onClick, ...rest }: LinkProps) {
  function handle(e: MouseEvent<HTMLAnchorElement>) {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(appStore, to);
  }
  return <a href={to} onClick={handle} {...rest} />;
}
