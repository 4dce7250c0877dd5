import { describe, expect, it } from 'vitest';
import { operatePath, parseOperatePath } from './route';

describe('operate paths', () => {
  it.each([
    ['/operate', ''],
    ['/operate/', ''],
    ['/operate/activities', 'activities'],
    ['/operate/home-page/', 'home-page'],
    ['/operate/Bad', null],
    ['/operate/a/b', null],
    ['/operates', null],
    ['/', null],
  ])('parseOperatePath(%s)', (path, expected) => {
    expect(parseOperatePath(path)).toBe(expected);
  });
  it('builds paths', () => {
    expect(operatePath('')).toBe('/operate');
    expect(operatePath('surveys')).toBe('/operate/surveys');
  });
});
