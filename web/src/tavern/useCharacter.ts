import { tavernApi } from './actions';
import type { CharacterView } from './model';
import { useErrorText } from './useErrorText';
import { useLoaded } from './useLoaded';

export type Loaded<T> = { status: 'loading' } | { status: 'error'; error: string } | { status: 'ready'; value: T };

const NOTHING: Loaded<null> = { status: 'ready', value: null };

/** Reads one character (null id: nothing to read). */
export function useCharacter(id: string | null): Loaded<CharacterView | null> {
  const errorText = useErrorText();
  const read = useLoaded<CharacterView | null>(() => (id === null ? Promise.resolve(null) : tavernApi.detail(id)), [id], null);
  if (id === null) return NOTHING;
  if (read.loading) return { status: 'loading' };
  if (read.failed) return { status: 'error', error: errorText(read.error) };
  return { status: 'ready', value: read.value };
}
