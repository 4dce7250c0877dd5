import { describe, expect, it } from 'vitest';
import { byPhoneCode } from './deletionState';
import type { DeletionMethods } from './deletionState';
import { cancelForms } from './ScheduledDeletion';

const base: DeletionMethods = { password: true, email: 'a@example.com', phone: null, sms_enabled: true, providers: [] };

describe('deletion forms by how the account signs in', () => {
  it('asks a password account for its e-mail and password', () => {
    expect(cancelForms(base)).toEqual({ password: true, phone: null, providers: [] });
    expect(byPhoneCode(base)).toBe(false);
  });

  it('asks a phone-only account for a code, and only when SMS is on', () => {
    const phone = { ...base, password: false, email: null, phone: '+44 7911 123456' };
    expect(cancelForms(phone)).toEqual({ password: false, phone: '+44 7911 123456', providers: [] });
    expect(byPhoneCode(phone)).toBe(true);
    expect(byPhoneCode({ ...phone, sms_enabled: false })).toBe(false);
    expect(cancelForms({ ...phone, sms_enabled: false }).phone).toBeNull();
  });

  it('offers each linked provider, beside the other ways', () => {
    const both = { ...base, phone: '+44 7911 123456', providers: ['acme', 'discord'] };
    expect(cancelForms(both)).toEqual({ password: true, phone: '+44 7911 123456', providers: ['acme', 'discord'] });
    // A password account confirms its request with the password, not a code.
    expect(byPhoneCode(both)).toBe(false);
  });

  it('falls back to the password form when the methods are unknown', () => {
    expect(cancelForms(null)).toEqual({ password: true, phone: null, providers: [] });
    expect(byPhoneCode(null)).toBe(false);
  });
});
