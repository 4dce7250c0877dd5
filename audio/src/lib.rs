//! Audio for Easel. Every engine yields [`Pcm`]; [`ffmpeg`] encodes it
//! (AAC in M4A, Opus) and decodes whatever users upload.
//!
//! - [`speech`]: the [`speech::Speaker`] port and its engines (espeak-ng,
//!   neural voices in a pinned worker, OpenAI-compatible `/v1/audio/speech`).
//! - [`analysis`]: loudness, pitch and voice measurements.
//! - [`music`], [`sfx`]: composition and synthesis (non-neural, labelled).
//! - [`face`], [`lipsync`]: face detection and the mouth animation.
//! - [`engine`]: the [`engine::AudioEngine`] that runs audio tasks for the
//!   workers, behind `engines::Engine`.
//!
//! Architecture Invariant: like `engines`, this crate does no storage and
//! knows nothing of tasks, credits or routes: bytes and parameters in,
//! bytes out.

pub mod analysis;
pub mod config;
pub mod engine;
pub mod face;
pub mod ffmpeg;
pub mod lipsync;
pub mod music;
pub mod pcm;
pub mod sfx;
pub mod speech;

pub use config::AudioConfig;
pub use engine::AudioEngine;
pub use pcm::Pcm;

/// Why audio work failed.
#[derive(Debug, thiserror::Error)]
pub enum AudioError {
    /// The input is not audio (or video) ffmpeg can read, or is out of limits.
    #[error("bad input: {0}")]
    BadInput(String),
    /// The work was cancelled.
    #[error("cancelled")]
    Cancelled,
    /// An engine or tool is missing or unreachable (retryable for remote ones).
    #[error("unavailable: {0}")]
    Unavailable(String),
    #[error("{0}")]
    Failed(String),
}

impl From<AudioError> for engines::EngineError {
    fn from(e: AudioError) -> Self {
        match e {
            AudioError::BadInput(m) => engines::EngineError::BadInput(m),
            AudioError::Cancelled => engines::EngineError::Cancelled,
            AudioError::Unavailable(m) => engines::EngineError::Unavailable(m),
            AudioError::Failed(m) => engines::EngineError::Failed(m),
        }
    }
}

impl From<engines::EngineError> for AudioError {
    fn from(e: engines::EngineError) -> Self {
        match e {
            engines::EngineError::Cancelled => AudioError::Cancelled,
            engines::EngineError::BadInput(m) => AudioError::BadInput(m),
            engines::EngineError::Unavailable(m) => AudioError::Unavailable(m),
            engines::EngineError::Failed(m) => AudioError::Failed(m),
        }
    }
}

impl From<std::io::Error> for AudioError {
    fn from(e: std::io::Error) -> Self {
        AudioError::Failed(format!("i/o: {e}"))
    }
}
