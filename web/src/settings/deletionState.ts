// The scheduled deletion's state, shared by the settings sections and the
// settings page (which shows it signed out): what the server answered and
// how the account proves itself (`account/delete/methods`).
import { atom } from '../state/jotai';

export interface DeletionView {
  state: 'pending' | 'sweeping' | 'done';
  purge_at: number;
  grace_days: number;
}

/** `account/delete/methods`: how this account proves itself. */
export interface DeletionMethods {
  password: boolean;
  email: string | null;
  phone: string | null;
  sms_enabled: boolean;
  providers: string[];
}

/** A scheduled deletion and how its cancel is proved. */
export interface ScheduledView extends DeletionView {
  methods: DeletionMethods | null;
}

/** The deletion this browser asked for, until it is cancelled (shown signed out). */
export const scheduledDeletionAtom = atom<ScheduledView | null>(null);

/** The account has no password but a phone: deletion is confirmed by a code. */
export function byPhoneCode(m: DeletionMethods | null): m is DeletionMethods & { phone: string } {
  return m !== null && !m.password && m.phone !== null && m.sms_enabled;
}


/**
 * The account has neither a password nor a phone code to give: deletion is
 * confirmed by signing in again at a linked provider.
 */
export function byProvider(m: DeletionMethods | null): boolean {
  return m !== null && !m.password && !byPhoneCode(m) && m.providers.length > 0;
}
