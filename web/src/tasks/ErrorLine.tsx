import { isMessageKey } from '../i18n/messages';
import { useT } from '../i18n/useT';

/** An error from the task atoms: `key:<message key>` or a plain text. */
export function ErrorLine({ text }: { text: string | null }) {
  const t = useT();
  if (text === null) return null;
  const key = text.startsWith('key:') ? text.slice(4) : null;
  return (
    <p className="form-error" role="alert">
      {key !== null && isMessageKey(key) ? t(key) : text}
    </p>
  );
}
