/** A character's picture, or its initial on a colour of its own when it has none. */
export function Avatar({ src, name, size = 'md' }: { src: string; name: string; size?: 'sm' | 'md' | 'lg' }) {
  if (src !== '') return <img className={`tv-avatar tv-avatar--${size}`} src={src} alt="" loading="lazy" />;
  const initial = [...name.trim()][0]?.toUpperCase() ?? '?';
  let hue = 0;
  for (const ch of name) hue = (hue * 31 + (ch.codePointAt(0) ?? 0)) % 360;
  return (
    <span className={`tv-avatar tv-avatar--${size} tv-avatar--initial`} style={{ background: `hsl(${hue} 55% 88%)`, color: `hsl(${hue} 45% 30%)` }} aria-hidden="true">
      {initial}
    </span>
  );
}
