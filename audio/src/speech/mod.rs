//! Speech: the [`Speaker`] port every place a voice speaks goes through
//! (`timbre/tts`, chat replies, lip-sync from text, sung vocals), and
//! [`Speakers`], which routes a [`VoiceSpec`] to its engine by
//! `VoiceSpec::engine`.

pub mod espeak;
pub mod neural;
pub mod remote;
pub mod training;

use std::sync::Arc;

use engines::Cancel;
use protocol::audio::VoiceSpec;

use crate::{AudioConfig, AudioError, Pcm};
use neural::NeuralVoices;
use remote::RemoteSpeaker;

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

/// Every configured speech engine behind one [`Speaker`]: `espeak` (in
/// every language, always there), `piper` and `kokoro` (the neural worker,
/// when its venv is installed), `remote` (when `tts_url` is set).
pub struct Speakers {
    neural: NeuralVoices,
    remote: Option<RemoteSpeaker>,
}

impl Speakers {
    pub fn new(config: AudioConfig) -> Arc<Speakers> {
        let remote = config.tts_url.as_deref().and_then(|url| {
            RemoteSpeaker::new(
                url,
                config.tts_api_key.clone(),
                config.tts_model.clone(),
                REMOTE_TIMEOUT,
            )
            .map(|r| r.with_default_voice(config.tts_voice.clone()))
            .map_err(|e| tracing::warn!("remote speech disabled: {e}"))
            .ok()
        });
        Arc::new(Speakers {
            neural: NeuralVoices::new(config.voice_python.clone(), !config.disable_piper),
            remote,
        })
    }

    /// Why an engine cannot speak here (`None`: it can, as far as is known
    /// without trying).
    pub fn unavailable_reason(&self, engine: &str) -> Option<String> {
        match engine {
            "espeak" => None,
            "piper" | "kokoro" => self.neural.unavailable_reason(engine),
            "remote" if self.remote.is_none() => {
                Some("no remote speech server is configured (EASEL_TTS_URL)".into())
            }
            "remote" => None,
            other => Some(format!("`{other}` is not a speech engine")),
        }
    }
}

/// How long a remote speech call may take.
pub const REMOTE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(55);

/// The human label of an engine.
pub fn engine_label(engine: &str) -> &'static str {
    match engine {
        "piper" => neural::PIPER_LABEL,
        "kokoro" => neural::KOKORO_LABEL,
        "remote" => remote::LABEL,
        _ => espeak::LABEL,
    }
}

#[async_trait::async_trait]
impl Speaker for Speakers {
    async fn speak(&self, req: SpeechRequest, cancel: Cancel) -> Result<Speech, AudioError> {
        if req.text.trim().is_empty() {
            return Err(AudioError::BadInput("there is no text to speak".into()));
        }
        match req.voice.engine.as_str() {
            "espeak" | "" => {
                tokio::task::spawn_blocking(move || espeak::speak_blocking(&req, &cancel))
                    .await
                    .map_err(|e| AudioError::Failed(format!("espeak panicked: {e}")))?
            }
            "piper" | "kokoro" => self.neural.speak(&req, &cancel).await,
            "remote" => match &self.remote {
                Some(r) => r.speak(&req, &cancel).await,
                None => Err(AudioError::Unavailable(
                    "no remote speech server is configured (EASEL_TTS_URL)".into(),
                )),
            },
            other => Err(AudioError::BadInput(format!(
                "`{other}` is not a speech engine"
            ))),
        }
    }
}
