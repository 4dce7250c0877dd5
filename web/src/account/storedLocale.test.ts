import { describe, expect, it } from 'vitest';
import { storedLocalePath } from './storedLocale';

const at = (pathname: string, search = '', hash = '') => ({ pathname, search, hash });

describe('storedLocalePath', () => {
  it('moves the same page under the stored locale', () => {
    expect(storedLocalePath(at('/en/settings/security', '?x=1', '#top'), 'zhCN')).toBe('/zhCN/settings/security?x=1#top');
    expect(storedLocalePath(at('/ja/'), 'fr')).toBe('/fr/');
  });

  it('stays when the page is in that locale, none is stored, or it is unknown', () => {
    expect(storedLocalePath(at('/zhCN/explore'), 'zhCN')).toBeNull();
    expect(storedLocalePath(at('/en/explore'), '')).toBeNull();
    expect(storedLocalePath(at('/en/explore'), 'xx')).toBeNull();
  });
});
