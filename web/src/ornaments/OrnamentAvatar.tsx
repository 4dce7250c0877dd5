// An avatar with the ornament its account wears over it, and a work's
// frame over its picture: the shared pieces every page showing an avatar or
// a work uses (header, cards, work pages, comments, the shop's preview).
import type { ReactNode } from 'react';
import './ornaments.css';

/** The avatar as the square draws it (picture or initial), with the ornament's overlay when worn. */
export function OrnamentAvatar({
  name,
  url,
  ornament,
  size = 24,
}: {
  name: string;
  url?: string | null | undefined;
  ornament?: string | null | undefined;
  size?: number;
}) {
  const initial = [...name.trim()][0]?.toUpperCase() ?? '?';
  const base = url ? (
    <img className="sq-avatar" src={url} alt="" width={size} height={size} style={{ width: size, height: size }} />
  ) : (
    <span className="sq-avatar sq-avatar--initial" aria-hidden="true" style={{ width: size, height: size, fontSize: size * 0.5 }}>
      {initial}
    </span>
  );
  // The overlay is larger than the avatar: a ring, a hat or wings reach past it.
  return (
    <WithOrnament ornament={ornament} size={size}>
      {base}
    </WithOrnament>
  );
}

/** Any avatar-like element (`children`, `size` px wide) with the ornament's overlay when worn. */
export function WithOrnament({ ornament, size, children }: { ornament?: string | null | undefined; size: number; children: ReactNode }) {
  if (!ornament) return <>{children}</>;
  const o = Math.round(size * OVERLAY_SCALE);
  return (
    <span className="orn-avatar" style={{ width: size, height: size }} data-testid="ornament-avatar">
      {children}
      <img className="orn-avatar__overlay" src={ornament} alt="" width={o} height={o} style={{ width: o, height: o }} draggable={false} data-testid="ornament-overlay" />
    </span>
  );
}

/** How much larger than the avatar its ornament is drawn. */
export const OVERLAY_SCALE = 1.4;

/** A work frame over a picture; place it inside the picture's positioned box. */
export function WorkFrameOverlay({ url }: { url?: string | null | undefined }) {
  if (!url) return null;
  return <img className="orn-frame" src={url} alt="" draggable={false} data-testid="work-frame" />;
}
