//! Speech: the [`Speaker`] port every place a voice speaks goes through
//! (`timbre/tts`, chat replies, lip-sync from text, sung vocals), and
//! [`Speakers`], which routes a [`VoiceSpec`] to its engine by
//! `VoiceSpec::engine`.

pub mod training;

use std::sync::Arc;

use engines::Cancel;
use protocol::audio::VoiceSpec;

use crate::{AudioConfig, AudioError, Pcm};

/// What to say, and how.
#[derive(Debug, Clone, PartialEq)]
pub struct SpeechRequest {
    pub text: String,
    pub voice: VoiceSpec,
    /// 1.0 = the voice's own pace.
    pub speed: f32,
    /// `neutral`, `happy`, `sad`, `angry`, ...
    pub emotion: String,
}

/// One phoneme and when it starts, for lip-sync.
#[derive(Debug, Clone, PartialEq)]
pub struct Phoneme {
    /// Milliseconds from the start of the audio.
    pub at_ms: u32,
    /// The phoneme in IPA.
    pub ipa: String,
}

/// What a speech engine made.
#[derive(Debug, Clone, PartialEq)]
pub struct Speech {
    pub pcm: Pcm,
    /// Phoneme timings when the engine gives them (espeak-ng does); empty
    /// otherwise.
    pub phonemes: Vec<Phoneme>,
    /// Which engine spoke (`espeak`, `piper`, `kokoro`, `remote`) and
    /// whether it is neural, for the labels.
    pub engine: String,
    pub neural: bool,
    /// What of the request the engine honoured (`speed`, `emotion`: how).
    pub applied: serde_json::Value,
}

/// A speech engine.
#[async_trait::async_trait]
pub trait Speaker: Send + Sync + 'static {
    async fn speak(&self, req: SpeechRequest, cancel: Cancel) -> Result<Speech, AudioError>;
}

/// Every configured speech engine behind one [`Speaker`].
pub struct Speakers {
    #[allow(dead_code)]
    config: AudioConfig,
}

impl Speakers {
    pub fn new(config: AudioConfig) -> Arc<Speakers> {
        Arc::new(Speakers { config })
    }
}

#[async_trait::async_trait]
impl Speaker for Speakers {
    async fn speak(&self, req: SpeechRequest, _cancel: Cancel) -> Result<Speech, AudioError> {
        Err(AudioError::Unavailable(format!(
            "speech engine `{}` is not built yet",
            req.voice.engine
        )))
    }
}
