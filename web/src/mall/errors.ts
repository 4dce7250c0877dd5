// Server answers the mall reacts to wherever they come from: CoinsNotEnough opens the
// recharge dialog; a members-only refusal (a perk the account lacks) opens the VIP pop-up.
// Kept free of components so the generator's generate flow can import it.

/** Code of CoinsNotEnough (protocol/src/error.rs). */
export const COINS_NOT_ENOUGH = 40301;

/**
 * Keys that refuse what members may do: TaskQueueFull (members have an unlimited queue),
 * videoQualityMemberOnly (video quality modes above 360p, spec 2 §6).
 * The LoRA limit (LoRALimit5TipWeb) has a dialog of its own that leads to the pop-up.
 */
export const MEMBER_ONLY_KEYS: ReadonlySet<string> = new Set(['TaskQueueFull', 'videoQualityMemberOnly']);

export function isMemberOnlyKey(key: string | null): boolean {
  return key !== null && MEMBER_ONLY_KEYS.has(key);
}
