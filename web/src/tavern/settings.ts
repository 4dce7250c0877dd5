// The chat settings dialog's pure parts: the limits session/edit accepts
// (backend/src/chat/mod.rs), the check of a draft, and the change to send.
import type { ChatSettings, ChatSession } from './model';

export const SETTINGS_LIMITS = {
  temperature: { min: 0, max: 2, step: 0.05 },
  top_p: { min: 0, max: 1, step: 0.05 },
  max_reply_tokens: { min: 16, max: 1024, step: 1 },
} as const;

export type SettingsField = keyof typeof SETTINGS_LIMITS;

/** Longest session title (characters). */
export const TITLE_MAX = 64;

/** What a session starts with when neither it nor its character says (the server's defaults). */
export const DEFAULT_SETTINGS: ChatSettings = { temperature: 0.7, top_p: 0.9, max_reply_tokens: 160 };

export type SettingsProblem = { kind: 'title' } | { kind: 'range'; field: SettingsField };

/** The first problem of the dialog's values, or null. A blank title means "keep the title". */
export function checkSessionEdit(title: string, s: ChatSettings): SettingsProblem | null {
  const t = title.trim();
  if ([...t].length > TITLE_MAX || /\p{Cc}/u.test(t)) return { kind: 'title' };
  for (const field of Object.keys(SETTINGS_LIMITS) as SettingsField[]) {
    const v = s[field];
    const { min, max } = SETTINGS_LIMITS[field];
    if (!Number.isFinite(v) || v < min || v > max) return { kind: 'range', field };
    if (field === 'max_reply_tokens' && !Number.isInteger(v)) return { kind: 'range', field };
  }
  return null;
}

/** The session/edit body's changes: the title when typed and different, the settings when different. Null: nothing changed. */
export function sessionChange(
  session: Pick<ChatSession, 'title' | 'settings'>,
  title: string,
  settings: ChatSettings,
): { title?: string; settings?: ChatSettings } | null {
  const change: { title?: string; settings?: ChatSettings } = {};
  const t = title.trim();
  if (t !== '' && t !== session.title) change.title = t;
  const was = session.settings;
  if (
    was === null ||
    was.temperature !== settings.temperature ||
    was.top_p !== settings.top_p ||
    was.max_reply_tokens !== settings.max_reply_tokens
  ) {
    change.settings = settings;
  }
  return Object.keys(change).length === 0 ? null : change;
}

/** A number typed into a settings field (NaN when not a number). */
export function settingValue(text: string): number {
  return text.trim() === '' ? Number.NaN : Number(text);
}
