// Character-level helpers both dialects share (mirror of
// protocol/src/prompt/syntax.rs): whitespace, escapes, bracket matching,
// top-level splitting, numbers and command markers. Text is handled as arrays
// of code points so indices match the Rust side's `char`s.

export type Chars = readonly string[];

/** Splits text into code points. */
export function chars(text: string): string[] {
  return Array.from(text);
}

const SPACES = new Set([
  ' ', '\t', '\n', '\r', '\u000B', '\u000C', '\u0085', '\u00A0', '\u1680',
  '\u2000', '\u2001', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007',
  '\u2008', '\u2009', '\u200A', '\u2028', '\u2029', '\u202F', '\u205F', '\u3000',
  '\uFEFF',
]);

/** The explicit whitespace set (not JS's own, which differs from Rust's). */
export function isSpace(c: string | undefined): boolean {
  return c !== undefined && SPACES.has(c);
}

/** Web-UI separators: comma, full-width comma, line breaks. */
export function isSeparator(c: string): boolean {
  return c === ',' || c === '\uFF0C' || c === '\n' || c === '\r';
}

function isEscapable(c: string | undefined): boolean {
  return c === '(' || c === ')' || c === '[' || c === ']' || c === ':' || c === '\\';
}

export const LONG_DASH = '\u2014';

export function trim(cs: Chars): Chars {
  let start = 0;
  while (start < cs.length && isSpace(cs[start])) start += 1;
  let end = cs.length;
  while (end > start && isSpace(cs[end - 1])) end -= 1;
  return cs.slice(start, end);
}

export function str(cs: Chars): string {
  return cs.join('');
}

function escapeAt(cs: Chars, i: number): boolean {
  return cs[i] === '\\' && isEscapable(cs[i + 1]);
}

/** Partner index of every matched unescaped bracket (stack matching). */
export function partners(cs: Chars): (number | undefined)[] {
  const partner: (number | undefined)[] = new Array<number | undefined>(cs.length).fill(undefined);
  const stack: number[] = [];
  let i = 0;
  while (i < cs.length) {
    if (escapeAt(cs, i)) {
      i += 2;
      continue;
    }
    const c = cs[i];
    if (c === '(' || c === '[') {
      stack.push(i);
    } else if (c === ')' || c === ']') {
      const want = c === ')' ? '(' : '[';
      const top = stack[stack.length - 1];
      if (top !== undefined && cs[top] === want) {
        stack.pop();
        partner[top] = i;
        partner[i] = top;
      }
    }
    i += 1;
  }
  return partner;
}

/** True when an unescaped `(` or `[` has no partner (see the Rust doc). */
export function hasUnclosedOpener(cs: Chars): boolean {
  const partner = partners(cs);
  let i = 0;
  while (i < cs.length) {
    if (escapeAt(cs, i)) {
      i += 2;
      continue;
    }
    const c = cs[i];
    if ((c === '(' || c === '[') && partner[i] === undefined) return true;
    i += 1;
  }
  return false;
}

/** Escapes every bracket without a partner (the web-UI parser's first step). */
export function escapeUnmatched(cs: Chars): string[] {
  const partner = partners(cs);
  const out: string[] = [];
  let i = 0;
  while (i < cs.length) {
    const c = cs[i] ?? '';
    if (escapeAt(cs, i)) {
      out.push('\\', cs[i + 1] ?? '\\');
      i += 2;
      continue;
    }
    if ((c === '(' || c === ')' || c === '[' || c === ']') && partner[i] === undefined) {
      out.push('\\');
    }
    out.push(c);
    i += 1;
  }
  return out;
}

function forTopLevel(cs: Chars, f: (i: number, c: string) => void): void {
  forTopLevelIn(cs, partners(cs), 0, cs.length, f);
}

function forTopLevelIn(
  cs: Chars,
  partner: readonly (number | undefined)[],
  lo: number,
  hi: number,
  f: (i: number, c: string) => void,
): void {
  let i = lo;
  while (i < hi && i < cs.length) {
    if (escapeAt(cs, i)) {
      i += 2;
      continue;
    }
    const c = cs[i] ?? '';
    if (c === '(' || c === '[') {
      const p = partner[i];
      if (p !== undefined) {
        i = p + 1;
        continue;
      }
    }
    f(i, c);
    i += 1;
  }
}

/**
 * A text with its bracket partners computed once, looked at through ranges
 * `lo..hi` (mirror of `Bracketed` in syntax.rs, which explains when that is
 * valid): peeling nested brackets through ranges keeps deep nesting linear.
 */
export class Bracketed {
  private readonly partner: (number | undefined)[];

  constructor(private readonly cs: Chars) {
    this.partner = partners(cs);
  }

  slice(lo: number, hi: number): Chars {
    return this.cs.slice(lo, hi);
  }

  trim(lo: number, hi: number): [number, number] {
    let a = lo;
    let b = hi;
    while (a < b && isSpace(this.cs[a])) a += 1;
    while (b > a && isSpace(this.cs[b - 1])) b -= 1;
    return [a, b];
  }

  wrapping(lo: number, hi: number): '(' | '[' | undefined {
    const first = this.cs[lo];
    if ((first !== '(' && first !== '[') || hi < lo + 2) return undefined;
    return this.partner[lo] === hi - 1 ? first : undefined;
  }

  topColons(lo: number, hi: number): number[] {
    const out: number[] = [];
    forTopLevelIn(this.cs, this.partner, lo, hi, (i, c) => {
      if (c === ':') out.push(i);
    });
    return out;
  }
}

export function splitTop(cs: Chars, isSep: (c: string) => boolean): Chars[] {
  const cuts: number[] = [];
  forTopLevel(cs, (i, c) => {
    if (isSep(c)) cuts.push(i);
  });
  const out: Chars[] = [];
  let start = 0;
  for (const cut of cuts) {
    out.push(cs.slice(start, cut));
    start = cut + 1;
  }
  out.push(cs.slice(start));
  return out;
}

export function topColons(cs: Chars): number[] {
  const out: number[] = [];
  forTopLevel(cs, (i, c) => {
    if (c === ':') out.push(i);
  });
  return out;
}

export function hasTopSeparator(cs: Chars): boolean {
  let found = false;
  forTopLevel(cs, (_, c) => {
    if (isSeparator(c)) found = true;
  });
  return found;
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** `[+-]?(digits[.digits?] | .digits)`, ASCII digits, no exponent. */
export function parseNumber(cs: Chars): number | undefined {
  const text = str(cs);
  return NUMBER.test(text) ? Number(text) : undefined;
}

export function tokens(cs: Chars): Chars[] {
  const out: Chars[] = [];
  let cur: string[] = [];
  for (const c of cs) {
    if (isSpace(c)) {
      if (cur.length > 0) out.push(cur);
      cur = [];
    } else {
      cur.push(c);
    }
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/** The name of a marker token (`--x`, `—x`), dashes stripped; undefined if none. */
export function markerName(token: Chars): Chars | undefined {
  const isMarker = (token[0] === '-' && token[1] === '-') || token[0] === LONG_DASH;
  if (!isMarker) return undefined;
  let start = 0;
  while (start < token.length && (token[start] === '-' || token[start] === LONG_DASH)) start += 1;
  const name = token.slice(start);
  return name.length > 0 ? name : undefined;
}

export function startsLikeCommand(cs: Chars): boolean {
  const first = tokens(cs)[0];
  return first !== undefined && markerName(first) !== undefined;
}

/** The last token is only dashes and starts like a marker (`--`, `—`). */
export function endsWithBareDashes(cs: Chars): boolean {
  const last = tokens(cs).at(-1) ?? [];
  const starts = (last[0] === '-' && last[1] === '-') || last[0] === LONG_DASH;
  return starts && last.every((c) => c === '-' || c === LONG_DASH);
}

export function endsWithLoneBackslash(cs: Chars): boolean {
  let n = 0;
  for (let i = cs.length - 1; i >= 0 && cs[i] === '\\'; i -= 1) n += 1;
  return n % 2 === 1;
}
