// Pure helpers of the home page: the carousel's next slide, the popup's
// local cache (spec 1 §5: popup open/close state is cached in local
// storage, so a popup closed today is not flashed again before the server
// answers), and the composer's conversions.
import type { ElementKind, Schedule } from './types';

/** The slide after `i` of `n` going `step` (+1 / -1), wrapping around. */
export function nextSlide(i: number, n: number, step: number): number {
  if (n <= 0) return 0;
  return (((i + step) % n) + n) % n;
}

/** The UTC day of `ms`. */
export function utcDay(ms: number): number {
  return Math.floor(ms / 86_400_000);
}

/** The calendar day of `ms` in the browser's zone (days since 1970-01-01), as the server counts a daily cap for a viewer in that zone. */
export function localDay(ms: number): number {
  const d = new Date(ms);
  return utcDay(Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()));
}

const CACHE_KEY = 'easel.popups.closed';

export interface StorageLike {
  getItem(k: string): string | null;
  setItem(k: string, v: string): void;
}

/** Popups closed on the UTC day `day` (older days are dropped). */
export function closedToday(storage: StorageLike, day: number): string[] {
  try {
    const raw = JSON.parse(storage.getItem(CACHE_KEY) ?? '{}') as { day?: number; ids?: unknown };
    return raw.day === day && Array.isArray(raw.ids) ? raw.ids.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** Records that popup `id` was closed on `day`. */
export function rememberClosed(storage: StorageLike, day: number, id: string): void {
  const ids = closedToday(storage, day);
  if (!ids.includes(id)) ids.push(id);
  try {
    storage.setItem(CACHE_KEY, JSON.stringify({ day, ids: ids.slice(-50) }));
  } catch {
    // Storage full or blocked: the server's record still holds.
  }
}

/** `datetime-local` input text for unix ms (local time), or '' for none. */
export function toLocalInput(ms: number | null): string {
  if (ms === null) return '';
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Unix ms of a `datetime-local` input's text, or null when empty or invalid. */
export function fromLocalInput(text: string): number | null {
  if (text.trim() === '') return null;
  const ms = new Date(text).getTime();
  return Number.isFinite(ms) ? ms : null;
}

export function scheduleOf(start: string, end: string): Schedule {
  return { start: fromLocalInput(start), end: fromLocalInput(end) };
}

/** An uploaded file's URL as a same-site path when it is on this origin. */
export function sameSitePath(url: string, origin: string): string {
  try {
    const u = new URL(url, origin);
    return u.origin === origin ? `${u.pathname}${u.search}` : url;
  } catch {
    return url;
  }
}

const ELEMENT_KINDS: readonly ElementKind[] = ['work', 'model', 'character', 'activity'];

function isElementKind(s: string | undefined): s is ElementKind {
  return ELEMENT_KINDS.includes(s as ElementKind);
}

/** Parses "work:ID, character:ID, activity:ID" into element references (bad entries dropped). */
export function parseElements(text: string): { kind: ElementKind; id: string }[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .flatMap((s) => {
      const [kind, id] = s.split(':', 2);
      return isElementKind(kind) && id ? [{ kind, id }] : [];
    });
}

/** The text `parseElements` reads back into `elements`. */
export function formatElements(elements: readonly { kind: ElementKind; id: string }[]): string {
  return elements.map((e) => `${e.kind}:${e.id}`).join(', ');
}

/** The browser's IANA time zone ('' when it has none to tell). */
export function browserZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone ?? '';
  } catch {
    return '';
  }
}
