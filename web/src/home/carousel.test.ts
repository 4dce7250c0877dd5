import { describe, expect, it } from 'vitest';
import { browserZone, closedToday, localDay, formatElements, fromLocalInput, nextSlide, parseElements, rememberClosed, sameSitePath, toLocalInput } from './carousel';

function memory() {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
}

describe('home helpers', () => {
  it('wraps the carousel both ways', () => {
    expect(nextSlide(0, 3, 1)).toBe(1);
    expect(nextSlide(2, 3, 1)).toBe(0);
    expect(nextSlide(0, 3, -1)).toBe(2);
    expect(nextSlide(0, 0, 1)).toBe(0);
  });

  it('keeps closed popups for the day only', () => {
    const s = memory();
    rememberClosed(s, 100, 'pp1');
    rememberClosed(s, 100, 'pp1');
    rememberClosed(s, 100, 'pp2');
    expect(closedToday(s, 100)).toEqual(['pp1', 'pp2']);
    expect(closedToday(s, 101)).toEqual([]);
    s.setItem('easel.popups.closed', 'not json');
    expect(closedToday(s, 100)).toEqual([]);
  });

  it('converts times, paths and element lists', () => {
    const ms = new Date(2026, 11, 1, 9, 30).getTime();
    expect(fromLocalInput(toLocalInput(ms))).toBe(ms);
    expect(fromLocalInput('')).toBeNull();
    expect(toLocalInput(null)).toBe('');
    expect(sameSitePath('http://a.test/files/u/1/x.png', 'http://a.test')).toBe('/files/u/1/x.png');
    expect(sameSitePath('https://cdn.test/x.png', 'http://a.test')).toBe('https://cdn.test/x.png');
    expect(parseElements('work:w1, character:c2 bogus model: x:y')).toEqual([
      { kind: 'work', id: 'w1' },
      { kind: 'character', id: 'c2' },
    ]);
  });

  it('round-trips element lists with activities, and names the browser zone', () => {
    const els = parseElements('activity:a1, work:w2 model:m3');
    expect(els).toEqual([
      { kind: 'activity', id: 'a1' },
      { kind: 'work', id: 'w2' },
      { kind: 'model', id: 'm3' },
    ]);
    expect(formatElements(els)).toBe('activity:a1, work:w2, model:m3');
    expect(parseElements(formatElements(els))).toEqual(els);
    expect(formatElements([])).toBe('');
    expect(browserZone()).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    // Local days turn at local midnight, whatever the zone.
    const lateEvening = new Date(2026, 10, 27, 23, 59).getTime();
    const midnight = new Date(2026, 10, 28, 0, 0).getTime();
    expect(localDay(midnight) - localDay(lateEvening)).toBe(1);
    expect(localDay(midnight)).toBe(localDay(new Date(2026, 10, 28, 23, 59).getTime()));
    expect(localDay(new Date(1970, 0, 1, 12).getTime())).toBe(0);
  });
});
