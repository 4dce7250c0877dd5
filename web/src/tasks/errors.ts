// Turns a failed call into something to show: a message key when the server
// sent one we can translate, else the server's own message.
import { isApiError } from '../api/client';
import { isMessageKey } from '../i18n/messages';
import type { MessageKey } from '../i18n/messages';

/** A message key (translate it) or a plain text. */
export type ErrorNote = { key: MessageKey } | { text: string };

export function errorNote(error: unknown): ErrorNote {
  if (isApiError(error)) {
    if (error.key !== null && isMessageKey(error.key)) return { key: error.key };
    if (error.msg.trim() !== '') return { text: error.msg };
  }
  return { key: 'tasks.error.generic' };
}

/** The same, flattened for an atom: a key prefixed with `key:`, or the text. */
export function errorText(error: unknown): string {
  const note = errorNote(error);
  return 'key' in note ? `key:${note.key}` : note.text;
}
