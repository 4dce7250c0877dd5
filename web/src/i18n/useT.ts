// The translation hook: `t(key, params)` in the current route's locale.
import { useCallback } from 'react';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { messagesFor, translate } from './messages';
import type { MessageKey } from './messages';
import type { MessageTable } from './en';

export type Translate = (key: MessageKey, params?: Readonly<Record<string, string | number>>) => string;

export function useMessages(): MessageTable {
  return messagesFor(useAtomValue(localeAtom));
}

export function useT(): Translate {
  const table = useMessages();
  return useCallback((key, params) => translate(table, key, params), [table]);
}
