import { describe, expect, it } from 'vitest';
import { clampLv, LV_MAX, LV_MIN, roundLv, stepLevelOf, stepLv, WEIGHT_STEP } from './weight';

describe('weight step (spec 1 §9: 1.1)', () => {
  it('is 1.1', () => {
    expect(WEIGHT_STEP).toBe(1.1);
  });

  it.each([
    [1, 'up', 1.1],
    [1.1, 'up', 1.21],
    [1.21, 'up', 1.33],
    [1, 'down', 0.91],
    [0.91, 'down', 0.83],
    [1.1, 'down', 1],
    [1.21, 'down', 1.1],
    [0.91, 'up', 1],
    [1.5, 'up', 1.65],
    [2, 'down', 1.82],
  ] as const)('%s %s → %s', (lv, dir, want) => {
    expect(stepLv(lv, dir)).toBe(want);
  });

  it('walks 1 → 1.1 → 1.21 and back to 1', () => {
    let lv = 1;
    const ups = [1, 2].map(() => (lv = stepLv(lv, 'up')));
    expect(ups).toEqual([1.1, 1.21]);
    expect(stepLv(stepLv(lv, 'down'), 'down')).toBe(1);
  });

  it('stops at the bounds', () => {
    expect(stepLv(LV_MAX, 'up')).toBe(LV_MAX);
    expect(stepLv(9.5, 'up')).toBe(LV_MAX);
    expect(stepLv(LV_MIN, 'down')).toBe(LV_MIN);
    expect(stepLv(0.105, 'down')).toBe(LV_MIN);
    let lv = 1;
    for (let i = 0; i < 100; i += 1) lv = stepLv(lv, 'down');
    expect(lv).toBe(LV_MIN);
    for (let i = 0; i < 100; i += 1) lv = stepLv(lv, 'up');
    expect(lv).toBe(LV_MAX);
  });

  it('moves a negative (bot) weight along the number line', () => {
    expect(stepLv(-1, 'up')).toBe(-0.91);
    expect(stepLv(-1, 'down')).toBe(-1.1);
    expect(stepLv(-LV_MIN, 'up')).toBe(-LV_MIN);
    expect(stepLv(-LV_MAX, 'down')).toBe(-LV_MAX);
  });

  it('leaves zero and repairs non-finite levels', () => {
    expect(stepLv(0, 'up')).toBe(0);
    expect(stepLv(Number.NaN, 'up')).toBe(1);
    expect(clampLv(Number.POSITIVE_INFINITY)).toBe(1);
  });
});

describe('rounding and clamping', () => {
  it.each([
    [1.21000000001, 1.21],
    [1.331, 1.33],
    [-0.125, -0.13],
    [1.005, 1], // the double is 1.00499…: the shared rule rounds the stored value, as Rust does
    [1.125, 1.13],
    [0.1 * 3, 0.3],
  ])('roundLv(%s) = %s', (x, want) => {
    expect(roundLv(x)).toBe(want);
  });

  it('never gives -0', () => {
    expect(Object.is(roundLv(-0.001), 0)).toBe(true);
  });

  it('clamps the magnitude and keeps the sign', () => {
    expect(clampLv(0.01)).toBe(LV_MIN);
    expect(clampLv(-0.01)).toBe(-LV_MIN);
    expect(clampLv(99)).toBe(LV_MAX);
    expect(clampLv(-99)).toBe(-LV_MAX);
    expect(clampLv(1.234)).toBe(1.23);
    expect(clampLv(0)).toBe(0);
  });
});

describe('step level (alv)', () => {
  it.each([
    [1, 0],
    [1.1, 1],
    [1.21, 2],
    [0.91, -1],
    [0.83, -2],
    [1.2, 0],
    [2.14, 8],
  ])('stepLevelOf(%s) = %s', (lv, k) => {
    expect(stepLevelOf(lv)).toBe(k);
  });
});
