import { useEffect, useState } from 'react';
import { tavernApi } from './actions';
import type { CharacterView } from './model';
import { useErrorText } from './useErrorText';

export type Loaded<T> = { status: 'loading' } | { status: 'error'; error: string } | { status: 'ready'; value: T };

/** Reads one character (null id: nothing to read). */
export function useCharacter(id: string | null): Loaded<CharacterView | null> {
  const errorText = useErrorText();
  const [state, setState] = useState<Loaded<CharacterView | null>>(id === null ? { status: 'ready', value: null } : { status: 'loading' });
  useEffect(() => {
    if (id === null) return;
    let stale = false;
    tavernApi
      .detail(id)
      .then((value) => {
        if (!stale) setState({ status: 'ready', value });
      })
      .catch((e: unknown) => {
        if (!stale) setState({ status: 'error', error: errorText(e) });
      });
    return () => {
      stale = true;
    };
  }, [id, errorText]);
  return state;
}
