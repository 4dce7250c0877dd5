import { describe, expect, it } from 'vitest';
import { canUndoPolish } from './polish';
import { checkSessionEdit, DEFAULT_SETTINGS, sessionChange, settingValue } from './settings';

describe('chat settings', () => {
  it('accepts the server ranges and names the first field out of them', () => {
    expect(checkSessionEdit('', DEFAULT_SETTINGS)).toBeNull();
    expect(checkSessionEdit('Night talk', { temperature: 2, top_p: 0, max_reply_tokens: 1024 })).toBeNull();
    expect(checkSessionEdit('', { ...DEFAULT_SETTINGS, temperature: 2.1 })).toEqual({ kind: 'range', field: 'temperature' });
    expect(checkSessionEdit('', { ...DEFAULT_SETTINGS, top_p: Number.NaN })).toEqual({ kind: 'range', field: 'top_p' });
    expect(checkSessionEdit('', { ...DEFAULT_SETTINGS, max_reply_tokens: 15 })).toEqual({ kind: 'range', field: 'max_reply_tokens' });
    expect(checkSessionEdit('', { ...DEFAULT_SETTINGS, max_reply_tokens: 100.5 })).toEqual({ kind: 'range', field: 'max_reply_tokens' });
  });

  it('checks the title: at most 64 characters, one line', () => {
    expect(checkSessionEdit('x'.repeat(64), DEFAULT_SETTINGS)).toBeNull();
    expect(checkSessionEdit('x'.repeat(65), DEFAULT_SETTINGS)).toEqual({ kind: 'title' });
    expect(checkSessionEdit('a\nb', DEFAULT_SETTINGS)).toEqual({ kind: 'title' });
  });

  it('sends only what changed; a blank title keeps the old one', () => {
    const session = { title: 'Old', settings: DEFAULT_SETTINGS };
    expect(sessionChange(session, 'Old', DEFAULT_SETTINGS)).toBeNull();
    expect(sessionChange(session, '  ', DEFAULT_SETTINGS)).toBeNull();
    expect(sessionChange(session, ' New ', DEFAULT_SETTINGS)).toEqual({ title: 'New' });
    const hot = { ...DEFAULT_SETTINGS, temperature: 1.3 };
    expect(sessionChange(session, 'Old', hot)).toEqual({ settings: hot });
    expect(sessionChange({ title: '', settings: null }, '', DEFAULT_SETTINGS)).toEqual({ settings: DEFAULT_SETTINGS });
  });

  it('reads typed numbers, blank as not a number', () => {
    expect(settingValue('0.75')).toBe(0.75);
    expect(settingValue('')).toBeNaN();
    expect(settingValue('abc')).toBeNaN();
  });
});

describe('polish undo', () => {
  it('is offered while the draft is still the polished text', () => {
    const memo = { before: 'i has a cat', after: 'I have a cat.' };
    expect(canUndoPolish(null, 'I have a cat.')).toBe(false);
    expect(canUndoPolish(memo, 'I have a cat.')).toBe(true);
    expect(canUndoPolish(memo, 'I have a cat. And')).toBe(false);
    expect(canUndoPolish({ before: 'Same.', after: 'Same.' }, 'Same.')).toBe(false);
  });
});
