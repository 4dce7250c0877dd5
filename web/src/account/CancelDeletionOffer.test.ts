import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { pendingDeletionAt } from './CancelDeletionOffer';

describe('pendingDeletionAt', () => {
  it('reads the purge time of a 20010 answer about a waiting deletion', () => {
    const e = new ApiError({ code: 20010, key: 'actNotAvailable', msg: 'account deletion scheduled at 1790000000000' }, 403);
    expect(pendingDeletionAt(e)).toBe(1790000000000);
  });

  it('offers nothing for a deleted account, other codes or other errors', () => {
    expect(pendingDeletionAt(new ApiError({ code: 20010, key: 'actNotAvailable', msg: 'this account was deleted' }, 403))).toBeNull();
    expect(pendingDeletionAt(new ApiError({ code: 20005, key: 'PasswordError', msg: 'deletion scheduled at 5' }, 401))).toBeNull();
    expect(pendingDeletionAt(new Error('deletion scheduled at 5'))).toBeNull();
  });
});
