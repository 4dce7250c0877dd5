import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { debounce } from './debounce';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('definition debounce (spec 1 §9: 200 ms)', () => {
  it('runs once with the last arguments, 200 ms after the last call', () => {
    const fn = vi.fn<(word: string) => void>();
    const look = debounce(fn);
    look('c');
    vi.advanceTimersByTime(150);
    look('ca');
    vi.advanceTimersByTime(150);
    look('cat');
    vi.advanceTimersByTime(199);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(1);
    expect(fn).toHaveBeenCalledWith('cat');
  });

  it('cancels and flushes', () => {
    const fn = vi.fn<(word: string) => void>();
    const look = debounce(fn, 50);
    look('a');
    look.cancel();
    vi.advanceTimersByTime(100);
    expect(fn).not.toHaveBeenCalled();
    look('b');
    look.flush();
    expect(fn).toHaveBeenCalledWith('b');
    vi.advanceTimersByTime(100);
    expect(fn).toHaveBeenCalledTimes(1);
    look.flush();
    expect(fn).toHaveBeenCalledTimes(1);
  });
});
