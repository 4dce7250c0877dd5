// The avatar with its ornament: the overlay only when one is worn, larger
// than the avatar and centred on it; a work frame only when there is one.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { OrnamentAvatar, OVERLAY_SCALE, WorkFrameOverlay } from './OrnamentAvatar';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function html(node: React.ReactNode): HTMLDivElement {
  const div = document.createElement('div');
  const root = createRoot(div);
  act(() => root.render(node));
  return div;
}

describe('OrnamentAvatar', () => {
  it('draws the plain avatar without an ornament', () => {
    const div = html(<OrnamentAvatar name="ada" size={20} />);
    expect(div.querySelector('[data-testid="ornament-overlay"]')).toBeNull();
    expect(div.textContent).toBe('A');
  });

  it('overlays the worn ornament, larger than the avatar', () => {
    const div = html(<OrnamentAvatar name="Ada" url="/files/me.png" ornament="/files/halo.png" size={20} />);
    const overlay = div.querySelector<HTMLImageElement>('[data-testid="ornament-overlay"]');
    expect(overlay?.getAttribute('src')).toBe('/files/halo.png');
    expect(overlay?.width).toBe(Math.round(20 * OVERLAY_SCALE));
    expect(div.querySelector('img.sq-avatar')?.getAttribute('src')).toBe('/files/me.png');
  });

  it('draws a work frame only when there is one', () => {
    expect(html(<WorkFrameOverlay url={null} />).innerHTML).toBe('');
    expect(html(<WorkFrameOverlay url="/files/gilt.png" />).querySelector('img')?.getAttribute('src')).toBe('/files/gilt.png');
  });
});
