import type { MessageKey } from '../i18n/en';
import { useT } from '../i18n/useT';

/** "length / max" under a text field, marked when the text is over its limit. */
export function CharCount({ length, max, messageKey = 'tavern.form.count' }: { length: number; max: number; messageKey?: MessageKey }) {
  const t = useT();
  return <span className={length > max ? 'field__count field__count--over' : 'field__count'}>{t(messageKey, { length, max })}</span>;
}
