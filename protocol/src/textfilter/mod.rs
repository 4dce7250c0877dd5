//! Text filtering (issue 20, spec 3 §7 `tool/text/detection` and
//! `tool/text/batch-filter`): word and pattern lists whose entries mask or
//! refuse per scene, matched after normalisation against evasion.
//!
//! Pure: `backend/src/textfilter/` stores the operators' lists, keeps the
//! compiled [`TextFilter`] and applies it to every text users write.
//!
//! - [`entry`]: entries, scenes, actions and the default list.
//! - [`normalise`]: folding (case, width, accents, homoglyphs, invisible
//!   characters), leetspeak, spelled-out words, repeats; mapped back to the
//!   original characters.
//! - [`matcher`]: the compiled list and its check (whole words where the
//!   script has spaces, anywhere in CJK, an allow list against Scunthorpe).
//! - [`wire`]: the calls' bodies.

pub mod entry;
pub mod matcher;
pub mod normalise;
pub mod wire;

#[cfg(test)]
mod tests;

pub use entry::{default_list, Action, Entry, EntryError, Kind, Scene};
pub use matcher::{Hit, TextFilter, Verdict, MASK};
