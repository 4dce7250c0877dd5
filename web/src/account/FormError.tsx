import type { ErrorMessage } from '../i18n/messages';
import { renderErrorMessage } from '../i18n/messages';
import { useMessages } from '../i18n/useT';

/** The popup's error line (translated server message). */
export function FormError({ error }: { error: ErrorMessage | null }) {
  const table = useMessages();
  if (error === null) return null;
  return (
    <p className="form-error" role="alert" data-testid="login-error">
      {renderErrorMessage(table, error)}
    </p>
  );
}
