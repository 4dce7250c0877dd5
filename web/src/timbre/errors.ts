// The text of a failed voice or audio call: the server's key translated when
// the table has it, else its message.
import { isApiError } from '../api/client';
import { isMessageKey } from '../i18n/messages';
import type { Translate } from '../i18n/useT';

export function errorText(t: Translate, e: unknown): string {
  if (isApiError(e) && e.key && isMessageKey(e.key)) return t(e.key);
  if (isApiError(e)) return e.msg;
  return e instanceof Error ? e.message : String(e);
}
