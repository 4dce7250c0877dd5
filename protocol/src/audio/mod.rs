//! Audio (spec 2 §1, §3, §7-§9; spec 3 §3, §7): the job an audio task
//! carries through the queue, voices (timbre), music, sound effects and
//! lyrics, lip-sync, and the audio transport's constants. Pure wire types
//! and rules, table-tested.

pub mod job;
pub mod lipsync;
pub mod music;
pub mod timbre;
pub mod transport;

pub use job::{AudioJob, SpeechSpec, VoiceSpec};
