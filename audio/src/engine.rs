//! The audio engine: runs the audio actions (`Action::is_audio`) for the
//! workers behind `engines::Engine`, one module per action family. Its
//! outputs are audio files (and an MP4 for the actions that make a video).

use std::sync::Arc;

use engines::{Cancel, Engine, EngineError, EngineResult, LoadedInput, Progress, TalkingEngine};
use protocol::task::{Action, EngineInfo, JobSpec};

use crate::speech::Speaker;
use crate::AudioConfig;

/// The label of the non-neural reference audio.
pub const LABEL: &str = "Easel reference audio (non-neural)";

/// What every audio action may use.
pub struct AudioContext {
    pub speaker: Arc<dyn Speaker>,
    pub config: AudioConfig,
    /// A remote lip-sync engine (ComfyUI's Wan 2.2 S2V); `None`: the
    /// built-in reference lip-sync.
    pub talking: Option<Arc<dyn TalkingEngine>>,
}

/// Runs audio tasks.
pub struct AudioEngine {
    ctx: Arc<AudioContext>,
}

impl AudioEngine {
    pub fn new(speaker: Arc<dyn Speaker>, config: AudioConfig) -> AudioEngine {
        AudioEngine {
            ctx: Arc::new(AudioContext {
                speaker,
                config,
                talking: None,
            }),
        }
    }

    /// Makes lip-sync run on `engine` (the sound is still spoken here).
    pub fn with_talking(self, engine: Arc<dyn TalkingEngine>) -> AudioEngine {
        let ctx = &self.ctx;
        AudioEngine {
            ctx: Arc::new(AudioContext {
                speaker: ctx.speaker.clone(),
                config: ctx.config.clone(),
                talking: Some(engine),
            }),
        }
    }

    /// The engine's own label (actions may answer a more precise one, e.g.
    /// when a neural voice spoke).
    pub fn reference_info() -> EngineInfo {
        EngineInfo {
            name: "reference-audio".into(),
            neural: false,
            label: LABEL.into(),
            notes: Vec::new(),
        }
    }
}

#[async_trait::async_trait]
impl Engine for AudioEngine {
    fn info(&self) -> EngineInfo {
        Self::reference_info()
    }

    fn supports(&self, action: Action, _family: &str) -> bool {
        action.is_audio()
    }

    async fn run(
        &self,
        job: &JobSpec,
        inputs: Vec<LoadedInput>,
        progress: Arc<dyn Progress>,
        cancel: Cancel,
    ) -> Result<EngineResult, EngineError> {
        let ctx = self.ctx.clone();
        match job.action {
            Action::TextToAudioEffect => {
                crate::sfx::run_task(ctx, job, inputs, progress, cancel).await
            }
            Action::TextToMusic | Action::VideoToAudio | Action::VideoAddMusic => {
                crate::music::run_task(ctx, job, inputs, progress, cancel).await
            }
            Action::AudioToLipVideo => {
                crate::lipsync::run_task(ctx, job, inputs, progress, cancel).await
            }
            Action::TimbreTrain => {
                crate::speech::training::run_task(ctx, job, inputs, progress, cancel).await
            }
            other => Err(EngineError::BadInput(format!(
                "{} is not an audio action",
                other.name()
            ))),
        }
    }
}
