import { useCallback } from 'react';
import { errorMessage, renderErrorMessage } from '../i18n/messages';
import { useMessages } from '../i18n/useT';

/** Turns a failed call into a translated text. */
export function useErrorText(): (error: unknown) => string {
  const table = useMessages();
  return useCallback((error: unknown) => renderErrorMessage(table, errorMessage(error)), [table]);
}
