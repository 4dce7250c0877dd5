import { describe, expect, it } from 'vitest';
import { isSecondStep } from './api';
import { cropSquare } from './ProfileSection';

describe('avatar crop square', () => {
  it('is the centred largest square at zoom 1', () => {
    expect(cropSquare(600, 300, 1, 0.5, 0.5)).toEqual({ x: 150, y: 0, size: 300 });
  });
  it('shrinks with zoom and stays inside the image', () => {
    expect(cropSquare(600, 300, 2, 0, 0)).toEqual({ x: 0, y: 0, size: 150 });
    expect(cropSquare(600, 300, 2, 1, 1)).toEqual({ x: 450, y: 150, size: 150 });
  });
});

describe('second step answer', () => {
  it('is told apart from login data', () => {
    expect(isSecondStep({ second_step: 'totp', challenge: 'c', expires_in: 300, methods: ['totp'] })).toBe(true);
    expect(isSecondStep({ account: {}, token: 't' })).toBe(false);
    expect(isSecondStep(null)).toBe(false);
  });
});
