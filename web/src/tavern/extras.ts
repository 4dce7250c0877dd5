// The tavern's side calls' pure parts (protocol/src/character_extras.rs):
// reporting a character, the user's chat persona (who `{{user}}` is), the
// editor's draft preview, picture prompts and the chat model; answers decoded
// tolerantly, and the rules the server applies, checked before sending.

/** Why a character is reported (the server's fixed set, most urgent first). */
export const REPORT_REASONS = ['sexual_minors', 'hate', 'violence', 'spam', 'impersonation', 'other'] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

export const REPORT_DETAIL_MAX = 500;
export const PERSONA_NAME_MAX = 64;
export const PERSONA_MAX = 2000;
/** Picture prompts shown at most (the server answers up to 3). */
export const IMAGE_PROMPTS = 3;

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
/** Length in characters (code points), as the server counts. */
export function charCount(s: string): number {
  return [...s].length;
}
/** Any control character (newlines included), as Rust's `char::is_control`. */
const ANY_CONTROL = /\p{Cc}/u;
/** A control character other than newline and tab. */
const CONTROL = { test: (s: string) => ANY_CONTROL.test(s.replace(/[\n\t]/g, '')) };

export type ReportProblem = 'detailTooLong' | 'detailNeeded' | 'detailInvalid';

/** What is wrong with a report before it is sent, or null. */
export function checkReport(reason: ReportReason, detail: string): ReportProblem | null {
  const d = detail.trim();
  if (charCount(d) > REPORT_DETAIL_MAX) return 'detailTooLong';
  if (CONTROL.test(d)) return 'detailInvalid';
  if (reason === 'other' && d === '') return 'detailNeeded';
  return null;
}

/** The user's chat persona. */
export interface Persona {
  /** What characters call the user; '' for the account name. */
  display_name: string;
  persona: string;
  /** What `{{user}}` becomes now (the display name or the account name). */
  user_name: string;
}

export function parsePersona(v: unknown): Persona {
  const o = isObject(v) ? v : {};
  const display_name = str(o.display_name);
  const user_name = str(o.user_name);
  return { display_name, persona: str(o.persona), user_name: user_name !== '' ? user_name : display_name };
}

export type PersonaProblem = 'nameTooLong' | 'nameOneLine' | 'personaTooLong' | 'personaInvalid';

/** What is wrong with a persona before it is saved, or null. */
export function checkPersona(displayName: string, persona: string): PersonaProblem | null {
  const name = displayName.trim();
  if (ANY_CONTROL.test(name)) return 'nameOneLine';
  if (charCount(name) > PERSONA_NAME_MAX) return 'nameTooLong';
  const p = persona.trim();
  if (charCount(p) > PERSONA_MAX) return 'personaTooLong';
  if (CONTROL.test(p)) return 'personaInvalid';
  return null;
}

/**
 * What `{{user}}` will become with the name typed: the name, or with none
 * the account name (the stored answer's `user_name` when it had no display
 * name, else the account's own name).
 */
export function userNameShown(typed: string, stored: Persona | null, accountName: string): string {
  const name = typed.trim();
  if (name !== '') return name;
  if (stored !== null && stored.display_name.trim() === '' && stored.user_name !== '') return stored.user_name;
  return accountName;
}

/** The update body: only what changed (absent fields stay as they are). */
export function personaChange(stored: Persona | null, displayName: string, persona: string): { display_name?: string; persona?: string } | null {
  const change: { display_name?: string; persona?: string } = {};
  const name = displayName.trim();
  const p = persona.trim();
  if (stored === null || name !== stored.display_name) change.display_name = name;
  if (stored === null || p !== stored.persona) change.persona = p;
  return Object.keys(change).length === 0 ? null : change;
}

export type PreviewRole = 'system' | 'user' | 'assistant';
export type PreviewKind = 'scenario' | 'greeting' | 'example';

/** One line of a draft's preview, macros applied. */
export interface PreviewItem {
  role: PreviewRole;
  content: string;
  kind: PreviewKind;
}

export function parsePreviewItem(v: unknown): PreviewItem | null {
  if (!isObject(v)) return null;
  const content = str(v.content);
  const role: PreviewRole | null = v.role === 'system' || v.role === 'user' || v.role === 'assistant' ? v.role : null;
  const kind: PreviewKind | null = v.kind === 'scenario' || v.kind === 'greeting' || v.kind === 'example' ? v.kind : null;
  if (role === null || kind === null || content.trim() === '') return null;
  return { role, content, kind };
}

/** A preview in its three parts: the scene, the greeting, the example lines (in order). */
export function splitPreview(items: readonly PreviewItem[]): { scenario: PreviewItem[]; greeting: PreviewItem[]; example: PreviewItem[] } {
  return {
    scenario: items.filter((i) => i.kind === 'scenario'),
    greeting: items.filter((i) => i.kind === 'greeting'),
    example: items.filter((i) => i.kind === 'example'),
  };
}

/** The draft fields the preview call takes. */
export interface PreviewDraft {
  name: string;
  greeting: string;
  persona: string;
  scenario: string;
  example_dialogue: string;
}

export function previewBody(d: PreviewDraft): PreviewDraft {
  return { name: d.name.trim(), greeting: d.greeting, persona: d.persona, scenario: d.scenario, example_dialogue: d.example_dialogue };
}

/** Picture prompts: non-blank, without repeats, at most [`IMAGE_PROMPTS`]. */
export function parsePrompts(items: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const x of items) {
    const p = typeof x === 'string' ? x.trim() : '';
    if (p !== '' && !out.includes(p)) out.push(p);
  }
  return out.slice(0, IMAGE_PROMPTS);
}

/** One chat model of `character/model_list`. */
export interface ChatModel {
  name: string;
  label: string;
  neural: boolean;
  context_tokens: number;
  default: boolean;
}

export function parseChatModel(v: unknown): ChatModel | null {
  if (!isObject(v)) return null;
  const name = str(v.name);
  const label = str(v.label) !== '' ? str(v.label) : name;
  if (label === '') return null;
  const ctx = v.context_tokens;
  return { name, label, neural: v.neural === true, context_tokens: typeof ctx === 'number' && Number.isFinite(ctx) ? ctx : 0, default: v.default === true };
}

/** The model that answers chats: the default one, else the first. */
export function answeringModel(models: readonly ChatModel[]): ChatModel | null {
  return models.find((m) => m.default) ?? models[0] ?? null;
}
