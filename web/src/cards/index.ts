// Content-card links and flags (spec 1 §2, §3).
export * from './cardLink';
export { CardLink, type CardLinkProps } from './CardLink';
