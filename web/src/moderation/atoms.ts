// Atoms of moderation: the signed-in account's moderation role, as answered
// by `moderation/me` for the token it was asked with (a new login asks again).
import { atom } from '../state/jotai';
import type { Role } from './api';

/** The role and the token it belongs to; null until the first answer. */
export const moderationRoleAtom = atom<{ token: string; role: Role } | null>(null);
