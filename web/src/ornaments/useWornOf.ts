// The avatar ornaments a list of people wear (channel members), read in one
// call and again when the list changes; failures show plain avatars.
import { useLoaded } from '../tavern/useLoaded';
import { ornamentApi } from './actions';

export function useWornOf(accountIds: readonly string[]): Record<string, string> {
  const key = [...new Set(accountIds)].sort().join(',');
  const { value } = useLoaded(() => ornamentApi.wornOf(key === '' ? [] : key.split(',')), [key], {} as Record<string, string>);
  return value;
}
