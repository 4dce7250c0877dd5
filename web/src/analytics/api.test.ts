import { describe, expect, it } from 'vitest';
import { heatColor, heatText, isoDay, retentionRate } from './api';

describe('analytics helpers', () => {
  it('computes retention shares', () => {
    const c = { week: '2026-11-02', size: 4, retained: [4, 2, 1] };
    expect(retentionRate(c, 0)).toBe(1);
    expect(retentionRate(c, 1)).toBe(0.5);
    expect(retentionRate(c, 5)).toBe(0);
    expect(retentionRate({ week: 'x', size: 0, retained: [] }, 0)).toBe(0);
  });

  it('colours the heat map from light to deep', () => {
    expect(heatColor(0)).toBe('hsl(212, 80%, 96%)');
    expect(heatColor(1)).toBe('hsl(212, 80%, 40%)');
    expect(heatColor(7)).toBe(heatColor(1));
    expect(heatText(0.2)).toBe('#111');
    expect(heatText(0.9)).toBe('#fff');
  });

  it('formats UTC days', () => {
    const d = new Date(Date.UTC(2026, 10, 27, 23, 59));
    expect(isoDay(d)).toBe('2026-11-27');
    expect(isoDay(d, 30)).toBe('2026-10-28');
  });
});
