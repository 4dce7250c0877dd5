// The character form's pure parts: its draft, the draft from a character,
// the publish body from a draft, and the limits of /tmp/notes/chat-api.md.
import type { CharacterFields, CharacterType, CharacterView, Gender, Preset } from './model';

export const LIMITS = {
  name: 64,
  description: 1000,
  persona: 8000,
  scenario: 4000,
  greeting: 4000,
  example_dialogue: 8000,
  tags: 10,
  tag: 24,
} as const;

/** What the form edits (tags as typed: comma separated). */
export interface CharacterDraft {
  name: string;
  description: string;
  persona: string;
  scenario: string;
  greeting: string;
  example_dialogue: string;
  tags: string;
  gender: Gender;
  character_type: CharacterType;
  avatar: string;
  published: boolean;
}

export const EMPTY_DRAFT: CharacterDraft = {
  name: '',
  description: '',
  persona: '',
  scenario: '',
  greeting: '',
  example_dialogue: '',
  tags: '',
  gender: 'female',
  character_type: 1,
  avatar: '',
  published: true,
};

export function draftOf(c: CharacterView): CharacterDraft {
  return {
    name: c.name,
    description: c.description,
    persona: c.persona,
    scenario: c.scenario,
    greeting: c.greeting,
    example_dialogue: c.example_dialogue,
    tags: c.tags.join(', '),
    gender: c.gender,
    character_type: c.character_type,
    avatar: c.avatar,
    published: c.published,
  };
}

/** The tags typed, trimmed, without empties or repeats. */
export function splitTags(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/[,，\n]/)) {
    const tag = raw.trim().replace(/^#/, '');
    if (tag !== '' && !out.some((t) => t.toLowerCase() === tag.toLowerCase())) out.push(tag);
  }
  return out;
}

export type DraftProblem =
  | { kind: 'required'; field: 'name' | 'greeting' }
  | { kind: 'tooLong'; field: keyof typeof LIMITS; max: number }
  | { kind: 'tags' };

const length = (s: string) => [...s].length;

/** The first problem of the draft, or null when the server should accept it. */
export function checkDraft(d: CharacterDraft): DraftProblem | null {
  if (d.name.trim() === '') return { kind: 'required', field: 'name' };
  if (d.greeting.trim() === '') return { kind: 'required', field: 'greeting' };
  for (const field of ['name', 'description', 'persona', 'scenario', 'greeting', 'example_dialogue'] as const) {
    if (length(d[field].trim()) > LIMITS[field]) return { kind: 'tooLong', field, max: LIMITS[field] };
  }
  const tags = splitTags(d.tags);
  if (tags.length > LIMITS.tags || tags.some((t) => length(t) > LIMITS.tag)) return { kind: 'tags' };
  return null;
}

/**
 * The publish body. Fields the form does not show (alternate greetings,
 * system prompt, notes, settings) are kept from `base` when editing, so an
 * imported card loses nothing.
 */
export function fieldsOf(d: CharacterDraft, base: CharacterView | null): CharacterFields {
  return {
    name: d.name.trim(),
    description: d.description.trim(),
    persona: d.persona.trim(),
    scenario: d.scenario.trim(),
    greeting: d.greeting.trim(),
    alternate_greetings: base?.alternate_greetings ?? [],
    example_dialogue: d.example_dialogue.trim(),
    system_prompt: base?.system_prompt ?? '',
    post_history_instructions: base?.post_history_instructions ?? '',
    creator_notes: base?.creator_notes ?? '',
    tags: splitTags(d.tags),
    gender: d.gender,
    character_type: d.character_type,
    avatar: d.avatar,
    settings: base?.settings ?? null,
    published: d.published,
  };
}

/** The fields a starter template fills. */
export const PRESET_FIELDS = ['persona', 'greeting', 'scenario'] as const;
export type PresetField = (typeof PRESET_FIELDS)[number];

/** The fields a template would overwrite: already written (not blank) and different from the template's. */
export function presetConflicts(d: CharacterDraft, p: Pick<Preset, PresetField>): PresetField[] {
  return PRESET_FIELDS.filter((f) => d[f].trim() !== '' && d[f].trim() !== p[f].trim());
}

/** The draft with the template's persona, greeting and scenario (the other fields untouched). */
export function applyPreset(d: CharacterDraft, p: Pick<Preset, PresetField>): CharacterDraft {
  return { ...d, persona: p.persona, greeting: p.greeting, scenario: p.scenario };
}
