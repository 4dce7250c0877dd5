import { describe, expect, it } from 'vitest';
import { applyPreset, checkDraft, draftOf, EMPTY_DRAFT, fieldsOf, presetConflicts, splitTags } from './form';
import { parseCharacter } from './model';

describe('character form', () => {
  it('splits tags, dropping blanks, hashes and repeats', () => {
    expect(splitTags(' fantasy, #Elf,, elf ,mage\nbard')).toEqual(['fantasy', 'Elf', 'mage', 'bard']);
  });

  it('asks for a name and a greeting, and checks the limits', () => {
    expect(checkDraft(EMPTY_DRAFT)).toEqual({ kind: 'required', field: 'name' });
    expect(checkDraft({ ...EMPTY_DRAFT, name: 'Ada' })).toEqual({ kind: 'required', field: 'greeting' });
    const ok = { ...EMPTY_DRAFT, name: 'Ada', greeting: 'Hello.' };
    expect(checkDraft(ok)).toBeNull();
    expect(checkDraft({ ...ok, name: 'x'.repeat(65) })).toEqual({ kind: 'tooLong', field: 'name', max: 64 });
    expect(checkDraft({ ...ok, tags: Array.from({ length: 11 }, (_, i) => `t${i}`).join(',') })).toEqual({ kind: 'tags' });
    expect(checkDraft({ ...ok, tags: 'y'.repeat(25) })).toEqual({ kind: 'tags' });
  });

  it('keeps the fields the form does not show when editing', () => {
    const base = parseCharacter({
      id: 'c',
      name: 'Ada',
      greeting: 'Hi',
      tags: ['a', 'b'],
      alternate_greetings: ['Yo'],
      system_prompt: 'sys',
      settings: { temperature: 0.5, top_p: 0.9, max_reply_tokens: 100 },
      published: false,
    })!;
    const draft = draftOf(base);
    expect(draft.tags).toBe('a, b');
    expect(draft.published).toBe(false);
    const body = fieldsOf({ ...draft, name: ' Ada L. ' }, base);
    expect(body).toMatchObject({ name: 'Ada L.', tags: ['a', 'b'], alternate_greetings: ['Yo'], system_prompt: 'sys', published: false });
    expect(body.settings?.temperature).toBe(0.5);
    expect(fieldsOf(EMPTY_DRAFT, null).settings).toBeNull();
  });
});

describe('starter templates', () => {
  const preset = { persona: 'A patient tutor.', greeting: 'Hello!', scenario: 'A lesson.' };

  it('fills persona, greeting and scenario, leaving the rest', () => {
    const d = applyPreset({ ...EMPTY_DRAFT, name: 'Ada', tags: 'maths' }, preset);
    expect(d).toMatchObject({ name: 'Ada', tags: 'maths', persona: 'A patient tutor.', greeting: 'Hello!', scenario: 'A lesson.' });
  });

  it('names the written fields it would overwrite (blank or equal ones are not)', () => {
    expect(presetConflicts(EMPTY_DRAFT, preset)).toEqual([]);
    expect(presetConflicts({ ...EMPTY_DRAFT, persona: '  ', greeting: 'Hello!' }, preset)).toEqual([]);
    expect(presetConflicts({ ...EMPTY_DRAFT, persona: 'Mine', scenario: 'Mine too' }, preset)).toEqual(['persona', 'scenario']);
  });
});
