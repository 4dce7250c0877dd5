// Prices are integer minor units shown in the currency's own decimals and the page's language.
import { describe, expect, it } from 'vitest';
import { formatPrice, minorDigits, savingPercent } from './money';

describe('formatPrice', () => {
  it('divides minor units by the currency’s decimals', () => {
    expect(minorDigits('CNY')).toBe(2);
    expect(minorDigits('JPY')).toBe(0);
    expect(minorDigits('KWD')).toBe(3);
    expect(formatPrice(3000, 'CNY', 'en')).toBe(new Intl.NumberFormat('en', { style: 'currency', currency: 'CNY' }).format(30));
    expect(formatPrice(3000, 'CNY', 'en')).toContain('30.00');
    expect(formatPrice(1999, 'USD', 'en')).toBe('$19.99');
    expect(formatPrice(500, 'JPY', 'en')).toContain('500');
    expect(formatPrice(500, 'JPY', 'en')).not.toContain('5.00');
    expect(formatPrice(1234, 'KWD', 'en')).toContain('1.234');
  });

  it('uses the page’s language', () => {
    expect(formatPrice(3000, 'CNY', 'zh-CN')).toBe('¥30.00');
    expect(formatPrice(123456, 'EUR', 'de')).toBe(new Intl.NumberFormat('de', { style: 'currency', currency: 'EUR' }).format(1234.56));
    expect(formatPrice(123456, 'EUR', 'de')).toContain('1.234,56');
  });

  it('defaults to CNY and survives an unknown code', () => {
    expect(formatPrice(100, null, 'zh-CN')).toBe('¥1.00');
    expect(formatPrice(100, '', 'zh-CN')).toBe('¥1.00');
    expect(formatPrice(250, 'cny', 'zh-CN')).toBe('¥2.50');
    expect(formatPrice(250, 'NOT-A-CODE', 'en')).toBe('2.50 NOT-A-CODE');
  });

  it('computes the saving against an original price', () => {
    expect(savingPercent(5000, 10000)).toBe(50);
    expect(savingPercent(9900, null)).toBeNull();
    expect(savingPercent(9900, 9900)).toBeNull();
    expect(savingPercent(9900, 5000)).toBeNull();
  });
});
