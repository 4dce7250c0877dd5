//! Server answers the mall reacts to wherever they come from: CoinsNotEnough opens the
//! recharge dialog, MemberOnly (a member-only quality, duration or option) the VIP pop-up.
//! Kept free of components so the generator's generate flow can import it.

/** Code of CoinsNotEnough (protocol/src/error.rs). */
export const COINS_NOT_ENOUGH = 40301;

/** Key of a member-only refusal; the LoRA limit (LoRALimit5TipWeb) has a dialog of its own. */
export const MEMBER_ONLY_KEY = 'MemberOnly';
