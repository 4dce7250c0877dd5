// Prices on screen: integer minor units of an ISO 4217 currency, formatted with
// Intl.NumberFormat in the page's language (the currency's own number of decimals).

/** The currency when a product or order does not say (spec 2 §7). */
export const DEFAULT_CURRENCY = 'CNY';

const cache = new Map<string, Intl.NumberFormat>();

function formatter(language: string, currency: string): Intl.NumberFormat {
  const key = `${language}|${currency}`;
  let f = cache.get(key);
  if (!f) {
    f = new Intl.NumberFormat(language, { style: 'currency', currency });
    cache.set(key, f);
  }
  return f;
}

/** Decimals of a currency's major unit (2 for CNY, 0 for JPY, 3 for KWD). */
export function minorDigits(currency: string): number {
  try {
    return formatter('en', currency).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** `3000, 'CNY'` -> "CN¥30.00" in English, "¥30.00" in Chinese. */
export function formatPrice(minor: number, currency: string | null | undefined, language: string): string {
  const code = (currency ?? '').trim().toUpperCase() || DEFAULT_CURRENCY;
  try {
    const f = formatter(language, code);
    const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
    return f.format(minor / 10 ** digits);
  } catch {
    // Not a currency Intl knows: the amount in hundredths and the code as given.
    return `${(minor / 100).toFixed(2)} ${code}`;
  }
}

/** Whole percent saved by `price` against `original` (null when there is no saving). */
export function savingPercent(price: number, original: number | null): number | null {
  if (original === null || original <= price || original <= 0) return null;
  return Math.round(((original - price) / original) * 100);
}
