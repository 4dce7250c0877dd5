// Role gating of spec 1 §6: who may open which tab, the free LoRA limit,
// the default image count and the queue lane.
import type { PaymentInfo } from '../api/types';
import { STARTER_TAB } from './tabs';
import type { TabId } from './tabs';

export type Role = 'visitor' | 'free' | 'paid';

/** LoRA models a free account may use at once (spec 1 §6, §9). */
export const FREE_LORA_LIMIT = 3;

/** No token: visitor. Paid: a full or lite membership (a company counts as paid). */
export function roleOf(token: string | null, payment: PaymentInfo | null): Role {
  if (token === null) return 'visitor';
  if (payment && (payment.activeState || payment.liteActiveState)) return 'paid';
  return 'free';
}

/** A visitor has only the starter tab; other tabs open the login dialog. */
export function canOpenTab(role: Role, tab: TabId): boolean {
  return role !== 'visitor' || tab === STARTER_TAB;
}

/** Spec 1 §5: a non-paid user with more than 3 LoRAs gets the limit dialog. */
export function loraLimitExceeded(role: Role, loraCount: number): boolean {
  return role !== 'paid' && loraCount > FREE_LORA_LIMIT;
}

/** Whether one more LoRA may be added without hitting the limit. */
export function mayAddLora(role: Role, loraCount: number): boolean {
  return !loraLimitExceeded(role, loraCount + 1);
}

/** n_iter bounds (spec 1 §9). */
export const N_ITER_MIN = 1;
export const N_ITER_MAX = 4;

/**
 * Default images per task (spec 1 §6, §9): visitors 1 (the starter flow
 * makes one), paid 4, free the stored choice or 2; SD 3.5 defaults to 4.
 */
export function defaultNIter(role: Role, family: string, stored: number | null): number {
  if (role === 'visitor') return 1;
  if (role === 'paid') return N_ITER_MAX;
  if (stored !== null && stored >= N_ITER_MIN && stored <= N_ITER_MAX) return stored;
  return family === 'sd3.5' ? N_ITER_MAX : 2;
}
