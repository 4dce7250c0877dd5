import type { AnchorHTMLAttributes } from 'react';
import { Link } from '../app/Link';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { cardHref, cardLink, type ContentCardItem } from './cardLink';

export interface CardLinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  item: ContentCardItem;
}

/** A content card's link: in-app through the router, an outside address in a new tab. */
export function CardLink({ item, ...rest }: CardLinkProps) {
  const locale = useAtomValue(localeAtom);
  const target = cardLink(item);
  if (target.kind === 'external') return <a href={target.url} target="_blank" rel="noopener noreferrer" {...rest} />;
  return <Link to={cardHref(item, locale)} {...rest} />;
}
