// Small hooks the mall's components share: prices in the page's language, error texts,
// dates, and a one-shot loader with its state.
import { useCallback, useEffect, useState } from 'react';
import { contentLanguage, errorMessage, renderErrorMessage } from '../i18n/messages';
import { useMessages } from '../i18n/useT';
import { localeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { formatPrice } from './money';

/** `(minor, currency) => "CN¥30.00"` in the page's language. */
export function usePrice(): (minor: number, currency: string | null | undefined) => string {
  const language = contentLanguage(useAtomValue(localeAtom));
  return useCallback((minor, currency) => formatPrice(minor, currency, language), [language]);
}

/** `(epochMs) => a short date` in the page's language. */
export function useDate(): (ms: number) => string {
  const language = contentLanguage(useAtomValue(localeAtom));
  return useCallback((ms) => new Date(ms).toLocaleDateString(language, { year: 'numeric', month: 'short', day: 'numeric' }), [language]);
}

/** `(error) => the translated message`. */
export function useErrorText(): (e: unknown) => string {
  const table = useMessages();
  return useCallback((e) => renderErrorMessage(table, errorMessage(e)), [table]);
}

export type Loaded<T> = { state: 'loading' } | { state: 'ready'; value: T } | { state: 'error'; error: unknown };

/** Runs `load` when `key` changes (and on `reload()`); answers its state, a reload, and a setter for its value. */
export function useLoad<T>(load: () => Promise<T>, key: string): [Loaded<T>, () => void, (value: T) => void] {
  const [round, setRound] = useState(0);
  const id = `${key}#${round}`;
  // The answer is kept with the load it belongs to; anything else reads as loading.
  const [held, setHeld] = useState<{ id: string; loaded: Loaded<T> } | null>(null);
  useEffect(() => {
    let live = true;
    load().then(
      (value) => live && setHeld({ id, loaded: { state: 'ready', value } }),
      (error: unknown) => live && setHeld({ id, loaded: { state: 'error', error } }),
    );
    return () => {
      live = false;
    };
    // `load` is a fresh closure each render; `id` says when it means something new.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  const set = useCallback((value: T) => setHeld({ id, loaded: { state: 'ready', value } }), [id]);
  return [held !== null && held.id === id ? held.loaded : { state: 'loading' }, reload, set];
}
